// engramory-managed-hook: Engramory's OpenCode plugin (memory index guard and the check after a
// write, continuity reminders).
// Written by `engramory init opencode --install-hooks`; `engramory uninstall opencode` removes it.
// Do not edit: run init again to rewrite it. No dependencies; OpenCode 1.x plugin API.
import { execFile } from "node:child_process";

// Baked in by init: {"guard": argv, "sync": argv, "store": path, "timeout_ms"?: n} (null in the
// shipped template).
const CONFIG = /*@ENGRAMORY_CONFIG@*/ null;
const GUARD_TIMEOUT_MS = (CONFIG && CONFIG.timeout_ms) || 10000;
const SYNC_TIMEOUT_MS = (CONFIG && CONFIG.timeout_ms) || 10000;
const GUARDED_TOOLS = new Set(["write", "edit", "apply_patch", "bash", "shell"]);
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

export const EngramoryGuard = async ({ directory } = {}) => {
  const cwd = typeof directory === "string" && directory ? directory : process.cwd();
  const sessionContext = new Map(); // session id -> the context SessionStart gave
  const pendingArgs = new Map(); // call id -> its arguments, for the check after it

  return {
    // Deny an edit that would grow MEMORY.md past its hard cap (or a shell write of it).
    "tool.execute.before": async (input, output) => {
      const tool = input && input.tool;
      if (!GUARDED_TOOLS.has(tool)) return;
      if (!CONFIG) return warnOnce("index guard", "the plugin was not configured by engramory init");
      const args = output && typeof output.args === "object" && output.args ? output.args : {};
      if (input && input.callID !== undefined) {
        if (pendingArgs.size >= 256) pendingArgs.delete(pendingArgs.keys().next().value);
        pendingArgs.set(input.callID, args);
      }
      const { answer, failure } = await run(CONFIG.guard, { tool, args, cwd }, GUARD_TIMEOUT_MS);
      if (failure) return warnOnce("index guard", failure);
      if (typeof answer.deny === "string") throw new Error(answer.deny);
    },

    // After the call (it ran: nothing to stop): what to undo is added to the tool's output.
    "tool.execute.after": async (input, output) => {
      try {
        const tool = input && input.tool;
        const args = pendingArgs.get(input && input.callID) || (input && input.args) || {};
        if (input) pendingArgs.delete(input.callID);
        if (!GUARDED_TOOLS.has(tool) || !CONFIG) return;
        const argv = [...CONFIG.guard, "--event", "post"];
        const { answer, failure } = await run(argv, { tool, args, cwd }, GUARD_TIMEOUT_MS);
        if (failure) return warnOnce("check after a write", failure);
        if (typeof answer.after !== "string") return;
        if (output && typeof output.output === "string") output.output += `\n\n${answer.after}`;
        else console.error(answer.after);
      } catch (error) {
        warnOnce("check after a write", String(error));
      }
    },

    event: async ({ event } = {}) => {
      try {
        const id = event && event.type === "session.created" && event.properties && event.properties.info
          ? event.properties.info.id : undefined;
        if (typeof id !== "string") return;
        const answer = await lifecycle("SessionStart", { session_id: id, source: "startup" });
        if (typeof answer.context === "string") sessionContext.set(id, answer.context);
      } catch (error) {
        warnOnce("continuity hook", String(error));
      }
    },

    // A user message: the session now has work to sync (only the first words are sent).
    "chat.message": async (input, output) => {
      try {
        const id = input && input.sessionID;
        if (typeof id !== "string") return;
        const parts = output && Array.isArray(output.parts) ? output.parts : [];
        const text = parts.filter((part) => part && part.type === "text" && typeof part.text === "string")
          .map((part) => part.text).join(" ").slice(0, 80);
        await lifecycle("UserPromptSubmit", { session_id: id, prompt: text });
      } catch (error) {
        warnOnce("continuity hook", String(error));
      }
    },

    // Compaction cannot be held back here: the store's context and any reminder go into it.
    "experimental.session.compacting": async (input, output) => {
      try {
        const id = input && input.sessionID;
        if (typeof id !== "string" || !output || !Array.isArray(output.context)) return;
        const answer = await lifecycle("PreCompact", { session_id: id, trigger: "auto" });
        if (sessionContext.has(id)) output.context.push(sessionContext.get(id));
        if (typeof answer.reminder === "string") output.context.push(answer.reminder);
      } catch (error) {
        warnOnce("continuity hook", String(error));
      }
    },
  };
};
