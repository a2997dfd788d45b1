// Preloaded into every Node.js program (node --require): make stdout and
// stderr blocking even when they are pipes. Node writes to a non-blocking pipe
// and queues what does not fit, so output still queued is lost at
// process.exit(), and a busy loop that prints grows memory instead of being
// paced by the reader. Blocking writes behave like every other language.
for (const stream of [process.stdout, process.stderr]) {
  if (stream._handle && typeof stream._handle.setBlocking === "function") {
    stream._handle.setBlocking(true);
  }
}
