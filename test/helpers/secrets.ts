/**
 * Secret-shaped values for tests, built at run time so that no test file holds a token-shaped
 * string itself (a push-protection scanner would stop the repository's own push).
 */
/** A deterministic, varied string of `n` characters from `alphabet`. */
function body(n: number, alphabet = 'A1b2C3d4E5f6G7h8J9k0LmNpQrStUvWxYz'): string {
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[(i * 7 + 3) % alphabet.length];
  return out;
}
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export const TOKENS: Record<string, string> = {
  aws: 'AKIA' + body(16, UPPER),
  github: 'gh' + 'p_' + body(36),
  githubOauth: 'gh' + 'o_' + body(36),
  githubServer: 'gh' + 's_' + body(36),
  githubPat: 'github' + '_pat_' + body(22) + '_' + body(59),
  gitlab: 'gl' + 'pat-' + body(20),
  slack: 'xo' + 'xb-' + '1234567890-1234567890123-' + body(24),
  openaiProject: 'sk-' + 'proj-' + body(60),
  openaiLegacy: 'sk-' + body(20) + 'T3Blbk' + 'FJ' + body(20),
  anthropic: 'sk-' + 'ant-api03-' + body(93) + 'AA',
  google: 'AI' + 'za' + body(35),
  stripe: 'sk' + '_live_' + body(24),
  npm: 'np' + 'm_' + body(36),
};

export const PRIVATE_KEY =
  '-----BEGIN OPENSSH ' +
  'PRIVATE KEY-----\n' +
  body(70, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') +
  '\n' +
  body(70) +
  '\n-----END OPENSSH PRIVATE KEY-----\n';
