import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isNode, LineCounter, parseDocument } from 'yaml';
import { ConfigError, type ConfigIssue } from './config-error.js';
import { type ServerConfig, validateConfig } from './validate.js';

/**
 * Reads and validates a YAML config at start (issue point 4). A bad file fails with the file, the line, the
 * path and the problem of every issue; nothing starts with half a config.
 */
export function loadConfigFile(file: string): ServerConfig {
  const abs = resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    throw new ConfigError(abs, [
      { path: [], problem: `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` },
    ]);
  }
  return parseConfigText(text, abs);
}

/** Parses and validates config text; `file` is only used in messages. */
export function parseConfigText(text: string, file: string): ServerConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        return {
          path: [],
          problem: `not valid YAML: ${e.message.split('\n')[0]}`,
          line: pos.line,
          column: pos.col,
        };
      }),
    );
  }
  const { config, issues } = validateConfig(doc.toJS());
  if (!config) {
    throw new ConfigError(
      file,
      issues.map((i): ConfigIssue => {
        // The deepest node that exists on the path gives the line: a missing key points at its parent.
        for (let n = i.path.length; n >= 0; n--) {
          const node = n === 0 ? doc.contents : doc.getIn(i.path.slice(0, n), true);
          if (isNode(node) && node.range) {
            const pos = lineCounter.linePos(node.range[0]);
            return { ...i, line: pos.line, column: pos.col };
          }
        }
        return i;
      }),
    );
  }
  return config;
}

/** Validates a config given as an object (startServer), with the same rules and messages as a file. */
export function configFromObject(raw: unknown, label = 'options.config'): ServerConfig {
  const { config, issues } = validateConfig(raw);
  if (!config) throw new ConfigError(label, issues);
  return config;
}
