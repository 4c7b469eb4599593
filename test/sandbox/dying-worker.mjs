// An ingest worker that dies at once (test/sandbox/robustness.test.ts): the sandbox must answer
// 500 for the requests it had, and keep serving.
process.exit(3);
