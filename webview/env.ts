/**
 * Monaco's environment, set before Monaco loads. The inspector's CSP has
 * `worker-src 'none'`: in a VS Code webview the build output is served from a
 * different origin than the page, so a worker would need a `blob:` source. We
 * run Monaco without workers instead: `getWorker` refuses, and Monaco computes
 * the diff on the main thread (it logs a one-time warning saying so).
 */
interface MonacoEnvironmentShape {
  getWorker(workerId: string, label: string): never;
}

const environment: MonacoEnvironmentShape = {
  getWorker(_workerId, label) {
    throw new Error(`Prefix Lens runs Monaco without web workers (CSP worker-src 'none'); "${label}" runs on the main thread.`);
  },
};

(globalThis as unknown as { MonacoEnvironment: MonacoEnvironmentShape }).MonacoEnvironment = environment;

export {};
