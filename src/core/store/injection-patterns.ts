/**
 * The patterns of the memory injection scanner (docs/memory-injection-scanner.md): 002's as written
 * (KosmoKrator's `PromptInjectionScanner`), and ctxkit's, each run on one form of the text
 * (`injection-normalize.ts`): `raw` (invisible characters are the finding), `lowered` (NFKC and
 * lower case: markup and shell patterns whose punctuation matters), `folded` (look-alikes, invisible
 * characters, accents, digits-for-letters and spacing undone: the word patterns) or `compact` (letters
 * only: a few long phrases that letter-spacing would otherwise hide).
 */

export type ScanForm = 'raw' | 'lowered' | 'folded' | 'compact';

/** One pattern: its label (002's where it is 002's), the expression, where it comes from, what it reads. */
export interface InjectionPattern {
  label: string;
  pattern: RegExp;
  source: '002' | 'ctxkit';
  on: ScanForm;
}

/** Zero-width and word-joiner characters (002). An alternation: U+200D in a class is a lint error. */
const INVISIBLE_002 = /\u200B|\u200C|\u200D|\u2060|\uFEFF/u;
/** Bidi embeddings/overrides/isolates, invisible math operators, the Mongolian vowel separator, tag characters. */
const INVISIBLE_MORE = /[\u180E\u2061-\u2064\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u;

const EARLIER = '(?:previous|prior|above|earlier|preceding|original|system|initial|old)';
const ORDERS =
  '(?:instructions?|directions?|directives?|rules|prompts?|guidelines|tasks|commands|orders|context)';
const ORDERS_COMPACT = '(?:instructions?|directions|directives|rules|prompts?|guidelines|tasks)';

export const INJECTION_PATTERNS: readonly InjectionPattern[] = [
  { label: 'invisible_unicode', pattern: INVISIBLE_002, source: '002', on: 'raw' },
  { label: 'invisible_unicode', pattern: INVISIBLE_MORE, source: 'ctxkit', on: 'raw' },
  {
    label: 'ignore_previous_instructions',
    pattern: /\bignore\s+(?:all\s+)?previous\s+instructions\b/u,
    source: '002',
    on: 'folded',
  },
  {
    label: 'ignore_previous_instructions',
    pattern: new RegExp(
      `\\b(?:ignore|forget|override|skip|discard|abandon)\\s+(?:all\\s+|any\\s+|every\\s+)?(?:of\\s+)?(?:the\\s+|your\\s+|my\\s+|these\\s+|those\\s+)?${EARLIER}\\s+${ORDERS}\\b`,
      'u',
    ),
    source: 'ctxkit',
    on: 'folded',
  },
  {
    label: 'ignore_previous_instructions',
    pattern:
      /\b(?:ignore|forget|disregard|discard)\s+(?:all\s+|everything\s+|anything\s+)(?:(?:that\s+)?(?:was\s+|you\s+were\s+|i\s+)?(?:said|written|stated|told|mentioned)\s+)?(?:above|before|earlier|previously|so\s+far)\b/u,
    source: 'ctxkit',
    on: 'folded',
  },
  {
    label: 'ignore_previous_instructions',
    pattern: new RegExp(
      `(?:ignore|forget|disregard|override)(?:all|any|every)?(?:of)?(?:the|your|my)?(?:previous|prior|above|earlier|preceding)${ORDERS_COMPACT}`,
      'u',
    ),
    source: 'ctxkit',
    on: 'compact',
  },
  {
    label: 'disregard_rules',
    pattern: /\bdisregard\s+(?:all\s+)?(?:previous\s+)?(?:instructions|rules)\b/u,
    source: '002',
    on: 'folded',
  },
  {
    label: 'disregard_rules',
    pattern:
      /\bdisregard\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous\s+|prior\s+|above\s+|system\s+)?(?:instructions|rules|guidelines|directives)\b/u,
    source: 'ctxkit',
    on: 'folded',
  },
  {
    label: 'role_hijack',
    pattern: /\b(?:you\s+are\s+now|act\s+as\s+(?:the\s+)?system|pretend\s+to\s+be\s+(?:the\s+)?system)\b/u,
    source: '002',
    on: 'folded',
  },
  {
    label: 'role_hijack',
    pattern:
      /\b(?:you'?re\s+now|you\s+are\s+no\s+longer|from\s+now\s+on,?\s+you\s+(?:are|will|must|shall)|you\s+(?:will|shall|must)\s+now\s+(?:act|behave|respond|be|pretend)|(?:known|called|named)\s+as\s+dan\b|do\s+anything\s+now|developer\s+mode\s+(?:enabled|output|on)|jailbroken|jailbreak\s+mode|stay\s+in\s+character|immerse\s+yourself\s+(?:into|in)\s+the\s+role)/u,
    source: 'ctxkit',
    on: 'folded',
  },
  {
    label: 'role_hijack',
    pattern:
      /(?:youarenowdan|youarenolonger|fromnowonyou(?:are|will|must|shall)|youwillnow(?:act|behave|respond|pretend)|doanythingnow|developermode(?:enabled|output)|jailbroken|jailbreakmode|stayincharacter|immerseyourselfintotherole)/u,
    source: 'ctxkit',
    on: 'compact',
  },
  {
    label: 'guardrail_bypass',
    pattern:
      /\b(?:not|never|isn'?t|aren'?t|no\s+longer)\s+(?:\w+\s+)?bound\s+by\s+(?:any\s+|the\s+|openai'?s?\s+)?(?:\w+\s+)?(?:rules|restrictions|guidelines|ethics|morals|polic(?:y|ies)|limitations|laws)\b|\b(?:does\s*n'?o?t|do\s*n'?o?t|will\s+not|won'?t|never|cannot|can'?t)\s+(?:have\s+to\s+|need\s+to\s+)?(?:follow|abide\s+by|obey|adhere\s+to|comply\s+with|care\s+about)\s+(?:any|openai'?s?|ethical|moral|content|safety|usage)\s+(?:\w+\s+)?(?:rules|restrictions|guidelines|ethics|morals|polic(?:y|ies)|filters|laws)\b|\b(?:ignore|bypass|circumvent|evade|disable|break|violate|disregard)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:your\s+|openai'?s?\s+|the\s+)?(?:ethical|moral|content|safety|usage|openai)\s+(?:guidelines|polic(?:y|ies)|filters|restrictions|rules|safeguards|principles)\b|\b(?:unfiltered|uncensored|amoral|unrestricted)\s+(?:ai|chatbot|assistant|language\s+model|mode)\b|\bcompletely\s+unlimited\b|\binsert\s+(?:your\s+)?prompt\s+here\b/u,
    source: 'ctxkit',
    on: 'folded',
  },
  {
    label: 'guardrail_bypass',
    pattern:
      /(?:notboundbyany|insertprompthere|insertyourprompthere|completelyunlimited|unfilteredai|uncensoredai|(?:doesnt|dont|donot|doesnot)(?:haveto)?(?:follow|obey)anyrules)/u,
    source: 'ctxkit',
    on: 'compact',
  },
  {
    label: 'role_markup',
    pattern:
      /<\|(?:im_start|start_header_id|system)\|>|<\/?system>|<<\/?sys>>|\[\/?inst\]|\[(?:system|admin|developer)(?:\s+(?:message|note|prompt|override))?\]|\(system_?message\)|(?:^|\s)#{1,6}\s*system\s*(?:prompt|message|instructions?|override)\s*:|^\s*#{1,3}\s*system\s*(?:prompt|message)\s*:?\s*$/mu,
    source: 'ctxkit',
    on: 'lowered',
  },
  {
    label: 'prompt_exfiltration',
    pattern:
      /\b(?:reveal|print|dump|show)\b.{0,120}\b(?:system\s+prompt|hidden\s+prompt|developer\s+message)\b/u,
    source: '002',
    on: 'folded',
  },
  {
    label: 'prompt_exfiltration',
    pattern:
      /\b(?:repeat|output|display|leak|tell\s+me|give\s+me|write\s+out)\b.{0,60}\b(?:your|the)\s+(?:full\s+|entire\s+|complete\s+)?(?:system|initial|original|hidden|secret)\s+(?:prompt|instructions|message)\b/u,
    source: 'ctxkit',
    on: 'folded',
  },
  {
    label: 'credential_exfiltration',
    pattern:
      /\b(?:api[_\s-]?key|token|secret|password|environment\s+variable|env\s+var)\b.{0,120}\b(?:reveal|print|dump|show|exfiltrat(?:e|ion)?)\b/u,
    source: '002',
    on: 'lowered',
  },
  {
    label: 'shell_secret_fetch',
    pattern: /\b(?:curl|wget)\b[^\n]{0,160}\$(?:[A-Z_][A-Z0-9_]*)/iu,
    source: '002',
    on: 'lowered',
  },
  {
    label: 'data_exfiltration',
    pattern:
      /\b(?:upload|send|post|exfiltrate|leak|email|forward|transmit)\b[^\n]{0,60}?(?:\.env\b|\bcredentials\b|\bsecrets\b|\bapi[ _-]?keys?\b|\bprivate\s+keys?\b|\bssh\s+keys?\b|\bpasswords?\b|\baccess\s+tokens?\b|\bsecurity\s+codes?\b)[^\n]{0,80}?\b(?:to|at|into)\s+(?:https?:\/\/|[\w.+-]+@[\w-]+\.|[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|xyz|ru|cn|me|app|dev|site|info|biz|co|tk)\b)/u,
    source: 'ctxkit',
    on: 'folded',
  },
  {
    label: 'markdown_image_exfiltration',
    pattern: /!\[[^\]]*\]\(\s*https?:\/\/[^)\s]*\?[^)\s]*=/u,
    source: 'ctxkit',
    on: 'lowered',
  },
];
