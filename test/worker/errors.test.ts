import { describe, expect, it } from 'vitest';
import { CtxError } from '../../src/core/index.ts';
import { errorReply, STATUS_BY_CODE } from '../../src/worker/errors.ts';

describe('errorReply', () => {
  it('maps every CtxError code to a status', () => {
    expect(Object.keys(STATUS_BY_CODE).sort()).toEqual(
      [
        'conflict',
        'context_overflow',
        'forbidden',
        'invalid_config',
        'invalid_input',
        'invariant_violation',
        'not_found',
        'payload_too_large',
        'provider_error',
        'quota_exceeded',
        'insufficient_scope',
        'storage_error',
        'unauthorized',
        'unsupported',
      ].sort(),
    );
  });

  it('keeps code, message and path of a client error, without the path prefix in the message', () => {
    const reply = errorReply(new CtxError('invalid_input', 'role is required', { path: 'messages[0].role' }));
    expect(reply).toEqual({
      status: 400,
      body: { error: { code: 'invalid_input', message: 'role is required', path: 'messages[0].role' } },
    });
  });

  it('answers forbidden as not found, so that existence never leaks', () => {
    const reply = errorReply(new CtxError('forbidden', 'other tenant'));
    expect([reply.status, reply.body.error.code]).toEqual([404, 'not_found']);
  });

  it('hides the message of a server-side error', () => {
    const reply = errorReply(
      new CtxError('storage_error', 'SQLITE_ERROR near "DROP": select * from api_keys'),
    );
    expect([reply.status, reply.body.error.message]).toEqual([503, 'storage is unavailable']);
  });

  it('answers 500 with a fixed text for anything else', () => {
    const error = new TypeError("Cannot read properties of undefined (reading 'x')");
    const original = console.error;
    console.error = () => undefined;
    try {
      expect(errorReply(error)).toEqual({
        status: 500,
        body: { error: { code: 'internal', message: 'internal error', path: null } },
      });
    } finally {
      console.error = original;
    }
  });
});
