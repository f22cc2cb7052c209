"""``engramory trace``: search what was said in Claude Code and Codex sessions.

A note keeps the conclusion; the host's transcript keeps the words. This
package reads both hosts' transcripts (JSON Lines files the hosts write) and
never writes anything. One module per job:

* :mod:`.model` -- the records every other module passes around;
* :mod:`.lines` -- a file's lines read in bounded chunks, optionally only the
  lines whose raw bytes hold a needle (most lines are never parsed);
* :mod:`.claude` and :mod:`.codex` -- where each host keeps its sessions and
  what one parsed record says (the person's words, the agent's, tool calls);
* :mod:`.selfcall` -- a shell command that runs ``engramory trace`` itself;
* :mod:`.scope` -- the transcript roots and which sessions belong to a project;
* :mod:`.search` -- the query, the raw-bytes prefilter, filters, sessions;
* :mod:`.parallel` -- a large history's files shared among forked processes;
* :mod:`.render` -- text and JSON Lines output.
"""
