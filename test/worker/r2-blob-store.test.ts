import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createR2BlobStore, tenantBlobPrefix } from '../../src/worker/blobs/r2-blob-store.ts';
import { blobStoreContract } from '../contract/blob-store-contract.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let bucket: R2Bucket;
let n = 0;

beforeAll(async () => {
  w = await startWorker({ migrate: false });
  bucket = (await w.mf.getR2Bucket('BLOBS')) as unknown as R2Bucket;
});
afterAll(async () => {
  await w?.dispose();
});

// Each test gets its own prefix, i.e. its own tenant: the stores never see each other's blobs.
blobStoreContract('R2 (Miniflare)', () =>
  createR2BlobStore({ bucket, prefix: tenantBlobPrefix(`contract-${++n}`) }),
);

describe('createR2BlobStore', () => {
  it('keeps tenants apart when two stores share one bucket', async () => {
    const a = createR2BlobStore({ bucket, prefix: tenantBlobPrefix('iso-a') });
    const b = createR2BlobStore({ bucket, prefix: tenantBlobPrefix('iso-b') });
    await a.put('same-id', 'secret of a');
    expect([await a.get('same-id'), await b.get('same-id')]).toEqual(['secret of a', undefined]);
    expect(await b.cleanup(Number.MAX_SAFE_INTEGER)).toBe(0);
    expect(await a.get('same-id')).toBe('secret of a');
  });

  it('gives a location under /v1/blobs/ when putting', async () => {
    const store = createR2BlobStore({ bucket, prefix: tenantBlobPrefix('loc') });
    expect((await store.put('call/1', 'x')).location).toBe('/v1/blobs/call%2F1');
  });
});
