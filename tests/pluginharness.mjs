// A stand-in host for Engramory's OpenCode and OpenClaw plugins (tests/test_plugins_node.py).
// Usage: node pluginharness.mjs PLUGIN HOST < calls.json. Loads PLUGIN as its host would (OpenCode:
// the exported plugin function, called with {directory}; OpenClaw: the default export's
// register(api) with a fake api), makes each call in order and prints, as JSON, what each
// returned or threw, what the plugin logged with console.error and api.logger.warn, and the
// options it registered its OpenClaw handlers with.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [plugin, host] = process.argv.slice(2);
const { directory, calls } = JSON.parse(readFileSync(0, "utf8"));
const errors = [];
const warnings = [];
console.error = (...args) => errors.push(args.join(" "));

const mod = await import(pathToFileURL(plugin).href);
let hooks;
const options = {};
if (host === "opencode") {
  hooks = await mod.EngramoryGuard({ directory, worktree: directory });
} else {
  hooks = {};
  const api = {
    on(name, handler, opts) { hooks[name] = handler; options[name] = opts ?? null; },
    logger: { warn: (message) => warnings.push(message) },
    runtime: { workspaceDir: directory },
  };
  mod.default.register(api);
}

const results = [];
for (const { hook, args } of calls) {
  try {
    const returned = await hooks[hook](...args);
    results.push({ returned: returned === undefined ? null : returned, args });
  } catch (error) {
    results.push({ threw: error instanceof Error ? error.message : String(error), args });
  }
}
process.stdout.write(JSON.stringify({ results, errors, warnings, options }));
