// Preloaded into the CLI process by the bench (node --import): prints its CPU time and peak RSS at exit.
process.on('exit', () => {
  const r = process.resourceUsage();
  process.stderr.write(
    `\nRUSAGE ${JSON.stringify({ userUs: r.userCPUTime, systemUs: r.systemCPUTime, maxRssKb: r.maxRSS })}\n`,
  );
});
