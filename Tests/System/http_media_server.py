"""A small HTTP server for the network tests: serves a directory on 127.0.0.1 with byte ranges
(FFmpeg seeks in an mp4 over http with Range requests, and resumes a dropped transfer with one).
Run as its own process so a test can kill it mid-stream (every connection drops at once, as
when a real server dies) and start it again on the same port:

    python3 http_media_server.py DIRECTORY PORT [BYTES_PER_SECOND]   (PORT 0: any free port)

BYTES_PER_SECOND paces every response (a slow link): without it a whole file lands in the
socket buffers at once and a kill would not interrupt anything.

It prints the port on its first line once it listens."""
import os
import sys
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class RangeHandler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive: FFmpeg's HLS reuses the connection

    def log_message(self, *args):
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            self.send_error(404, "not found")
            return None
        size = os.path.getsize(path)
        start, end = 0, size - 1
        header = self.headers.get("Range")
        if header and header.startswith("bytes="):
            first, _, last = header[len("bytes="):].split(",")[0].partition("-")
            if first:
                start = int(first)
                end = int(last) if last else size - 1
            elif last:
                start = max(0, size - int(last))
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            end = min(end, size - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        else:
            self.send_response(200)
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        handle = open(path, "rb")
        handle.seek(start)
        self.remaining = end - start + 1
        return handle

    rate = 0

    def copyfile(self, source, destination):
        chunk_size = min(64 * 1024, self.rate // 10) if self.rate else 64 * 1024
        while self.remaining > 0:
            chunk = source.read(min(chunk_size, self.remaining))
            if not chunk:
                break
            destination.write(chunk)
            self.remaining -= len(chunk)
            if self.rate:
                time.sleep(len(chunk) / self.rate)


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass   # a client that hangs up mid-transfer is what the tests do on purpose


def main():
    directory, port = sys.argv[1], int(sys.argv[2])
    RangeHandler.rate = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    server = QuietServer(("127.0.0.1", port), partial(RangeHandler, directory=directory))
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
