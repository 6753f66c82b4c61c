// Fetches and inflates the memory snapshot on a thread of its own, so the
// engine worker's thread stays free to load and start Pyodide meanwhile.
// Asked {url, size}; answers {bytes} (its buffer transferred) or {error}.

import { fetchSnapshot, reason } from "./snapshot.js";

self.onmessage = async (event) => {
  const { url, size } = event.data;
  try {
    const bytes = await fetchSnapshot(url, size);
    self.postMessage({ bytes }, [bytes.buffer]);
  } catch (err) {
    self.postMessage({ error: reason(err) });
  }
};
