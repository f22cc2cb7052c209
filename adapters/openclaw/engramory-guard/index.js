// engramory-managed-hook: Engramory's OpenClaw plugin (memory index guard, continuity reminders).
// Written by `engramory init openclaw --install-hooks`; `engramory uninstall openclaw` removes it.
// Do not edit: run init again to rewrite it. No dependencies. OpenClaw blocks a tool call whose
// before_tool_call handler throws or takes 15 s, so every handler here catches everything.
import { execFile } from "node:child_process";

// Baked in by init: {"guard": argv, "sync": argv, "store": path, "timeout_ms"?: n} (null in the
// shipped template).
const CONFIG = /*@ENGRAMORY_CONFIG@*/ null;
const GUARD_TIMEOUT_MS = (CONFIG && CONFIG.timeout_ms) || 5000;
const SYNC_TIMEOUT_MS = (CONFIG && CONFIG.timeout_ms) || 5000;
const GUARDED_TOOLS = ["write", "edit", "apply_patch", "exec", "bash"];
const warned = new Set();

// Say once per kind of trouble that Engramory is not doing its job; never stop the agent.
function warnOnce(kind, detail) {
  if (warned.has(kind)) return;
  warned.add(kind);
  console.error(`engramory: the ${kind} did not run (${detail}); the agent goes on unchecked`);
}

// Run argv (no shell) with `input` as JSON on stdin: {answer} (the JSON object it printed, {} for
// nothing) or {failure} (cannot start, non-zero exit, timeout, output that is not one object).
function run(argv, input, timeoutMs) {
  return new Promise((resolve) => {
    try {
      const options = { timeout: timeoutMs, maxBuffer: 1 << 20, windowsHide: true };
      const child = execFile(argv[0], argv.slice(1), options, (error, stdout) => {
        if (error) {
          resolve({ failure: error.killed ? `no answer within ${timeoutMs} ms` : `${error.code ?? error.message}` });
          return;
        }
        const text = String(stdout).trim();
        if (!text) return resolve({ answer: {} });
        try {
          const answer = JSON.parse(text);
          const isObject = answer !== null && typeof answer === "object" && !Array.isArray(answer);
          resolve(isObject ? { answer } : { failure: "unexpected output" });
        } catch {
          resolve({ failure: "unreadable output" });
        }
      });
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(input));
    } catch (error) {
      resolve({ failure: String(error && error.message ? error.message : error) });
    }
  });
}

// One continuity event through `engramory sync hook`: its answer ({} when it said nothing or failed).
async function lifecycle(event, payload) {
  if (!CONFIG) return {};
  const argv = [...CONFIG.sync, "--event", event, "--", CONFIG.store];
  const { answer, failure } = await run(argv, payload, SYNC_TIMEOUT_MS);
  if (failure) warnOnce("continuity hook", failure);
  return answer || {};
}

function workspace(ctx, api) {
  const dir = (ctx && ctx.workspaceDir) || (api && api.runtime && api.runtime.workspaceDir);
  return typeof dir === "string" && dir ? dir : process.cwd();
}

function sessionOf(ctx) {
  const id = ctx && (ctx.sessionId || ctx.sessionKey);
  return typeof id === "string" && id ? id : undefined;
}

export default {
  id: "engramory-guard",
  name: "Engramory index guard",
  register(api) {
    const started = new Set(); // sessions whose SessionStart ran

    // Block an edit that would grow MEMORY.md past its hard cap (or a shell write of it).
    api.on("before_tool_call", async (event, ctx) => {
      try {
        const tool = event && event.toolName;
        if (!GUARDED_TOOLS.includes(tool)) return undefined;
        if (!CONFIG) return warnOnce("index guard", "the plugin was not configured by engramory init");
        const args = event.params && typeof event.params === "object" ? event.params : {};
        const payload = { tool, args, cwd: workspace(ctx, api) };
        const { answer, failure } = await run(CONFIG.guard, payload, GUARD_TIMEOUT_MS);
        if (failure) return warnOnce("index guard", failure);
        if (typeof answer.deny === "string") return { block: true, blockReason: answer.deny };
      } catch (error) {
        warnOnce("index guard", String(error));
      }
      return undefined;
    }, { matcher: GUARDED_TOOLS });

    // After the call: what to undo goes to OpenClaw's log (after_tool_call only observes).
    api.on("after_tool_call", async (event, ctx) => {
      try {
        const tool = event && event.toolName;
        if (!GUARDED_TOOLS.includes(tool) || !CONFIG) return undefined;
        const args = event.params && typeof event.params === "object" ? event.params : {};
        const argv = [...CONFIG.guard, "--event", "post"];
        const { answer, failure } = await run(argv, { tool, args, cwd: workspace(ctx, api) }, GUARD_TIMEOUT_MS);
        if (failure) return warnOnce("check after a write", failure);
        if (typeof answer.after !== "string") return undefined;
        if (api.logger && typeof api.logger.warn === "function") api.logger.warn(answer.after);
        else console.error(answer.after);
      } catch (error) {
        warnOnce("check after a write", String(error));
      }
      return undefined;
    });

    // Each prompt: the session has work to sync; its first prompt also gets the store's context.
    api.on("before_prompt_build", async (event, ctx) => {
      try {
        const id = sessionOf(ctx);
        if (!id) return undefined;
        let context;
        if (!started.has(id)) {
          started.add(id);
          context = (await lifecycle("SessionStart", { session_id: id, source: "startup" })).context;
        }
        const prompt = event && typeof event.prompt === "string" ? event.prompt.slice(0, 80) : "";
        await lifecycle("UserPromptSubmit", { session_id: id, prompt });
        if (typeof context === "string") return { prependContext: context };
      } catch (error) {
        warnOnce("continuity hook", String(error));
      }
      return undefined;
    });

    // Compaction can only be observed here: a dirty session's reminder is logged.
    api.on("before_compaction", async (event, ctx) => {
      try {
        const id = sessionOf(ctx);
        if (!id) return undefined;
        const answer = await lifecycle("PreCompact", { session_id: id, trigger: "auto" });
        if (typeof answer.reminder === "string") {
          if (api.logger && typeof api.logger.warn === "function") api.logger.warn(answer.reminder);
          else console.error(answer.reminder);
        }
      } catch (error) {
        warnOnce("continuity hook", String(error));
      }
      return undefined;
    });
  },
};
