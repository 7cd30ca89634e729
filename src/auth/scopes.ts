// spec.md "Authentication": the scopes a key can carry, fixed at creation.
import { SvcError } from '../errors.js';
import { isScope, SCOPES, type Scope } from '../model/key.js';

/** Parses `send,read` (CLI) into a de-duplicated scope list in the spec's order. */
export function parseScopes(input: string | readonly string[]): Scope[] {
  const parts = (typeof input === 'string' ? input.split(',') : [...input]).map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw new SvcError('usage', 'scopes must not be empty');
  for (const p of parts) {
    if (!isScope(p)) throw new SvcError('usage', `unknown scope '${p}' (use ${SCOPES.join(', ')})`);
  }
  return SCOPES.filter((s) => parts.includes(s));
}

/** `*` means every scope, present and future. */
export function hasScope(granted: readonly Scope[], wanted: Scope): boolean {
  return granted.includes('*') || granted.includes(wanted);
}

/**
 * An endpoint accepts any of `anyOf`; the 403 names `named` (spec: read-or-newsletter endpoints
 * name newsletter, read-or-send ones name read).
 */
export interface ScopeRule {
  anyOf: readonly Scope[];
  named: Scope;
}

export function requireScope(granted: readonly Scope[], rule: ScopeRule): void {
  if (!rule.anyOf.some((s) => hasScope(granted, s))) {
    throw new SvcError('missing_permission', `missing permission: ${rule.named}`);
  }
}
