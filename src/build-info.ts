// What this build is (`svc version`, `svc status`): package.json's version and, in a build, the
// commit and time scripts/copy-assets.mjs wrote into dist/build.json. Read relative to this file,
// which lies in src/ when run from source and in dist/src/ when built.
import { readFileSync } from 'node:fs';

export interface BuildInfo {
  version: string;
  commit: string | null;
  built_at: string | null;
}

const readJson = (rel: string): Record<string, unknown> | null => {
  try {
    return JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
};

let cached: BuildInfo | undefined;

export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const pkg = readJson('../../package.json') ?? readJson('../package.json');
  const build = readJson('../build.json');
  cached = {
    version: String(pkg?.version ?? 'unknown'),
    commit: typeof build?.commit === 'string' ? build.commit : null,
    built_at: typeof build?.built_at === 'string' ? build.built_at : null,
  };
  return cached;
}
