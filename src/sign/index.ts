/**
 * SSH signatures in git's `gpg.format=ssh` format (OpenSSH SSHSIG): signed by running
 * `ssh-keygen -Y sign` as git does, verified in-process against the bytes given, and trust
 * decided with an `allowed_signers` file.
 */
export {
  findSigner,
  isAllowedSigner,
  matchPatternList,
  namedPrincipals,
  parseAllowedSigners,
  type AllowedSigner,
  type AllowedSignersProblem,
} from './allowed-signers.js';
export { fingerprint, formatPublicKey, parsePublicKeyLine } from './keys.js';
export { signWithSshKeygen, type SignOptions, type SshKeygenSigner } from './ssh-keygen.js';
export {
  armorSignature,
  dearmorSignature,
  parseSignature,
  toSignedData,
  verifySignature,
  type SshSignature,
  type VerifyResult,
} from './sshsig.js';
