"""A small HTTP server for the network tests: serves a directory on 127.0.0.1 with byte ranges
(FFmpeg seeks in an mp4 over http with Range requests, and resumes a dropped transfer with one).
Run as its own process so a test can kill it mid-stream (every connection drops at once, as
when a real server dies) and start it again on the same port:

    python3 http_media_server.py DIRECTORY PORT [BYTES_PER_SECOND]   (PORT 0: any free port)

BYTES_PER_SECOND paces every response (a slow link): without it a whole file lands in the
socket buffers at once and a kill would not interrupt anything.

It prints the port on its first line once it listens.

Content sync's tests (test_content_sync.py) add behaviours with flags after those arguments:
  --etag             a strong ETag per file (size and mtime): If-None-Match gives 304, an If-Range
                     that does not match gives the whole file (200), as a real server does
  --die-after N      the process exits after N body bytes in all (a server killed mid-file)
  --cut-first N      each path's first body is cut after N bytes (the connection closed, the
                     Content-Length promised more); later requests for it are served whole
  --hang SUFFIX      paths ending so get their headers and then nothing (a hung server)
  --ignore-range     Range is ignored: always 200 and the whole file
  --html SUFFIX      paths ending so are served as text/html (a captive portal's page)
  --tls CERT KEY     HTTPS with that certificate chain and key (PEM)
Without them it behaves as before."""
import argparse
import os
import ssl
import sys
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class RangeHandler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive: FFmpeg's HLS reuses the connection

    def log_message(self, *args):
        pass

    options = argparse.Namespace(etag=False, die_after=None, hang=None, ignore_range=False, html=None, cut_first=None)
    sent = 0   # body bytes sent by the whole process (for --die-after)
    lock = threading.Lock()
    cut_paths = set()   # the paths whose first body was cut (for --cut-first)

    def send_head(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            self.send_error(404, "not found")
            return None
        size = os.path.getsize(path)
        start, end = 0, size - 1
        options = RangeHandler.options
        etag = None
        if options.etag:
            info = os.stat(path)
            etag = f'"{info.st_size:x}-{info.st_mtime_ns:x}"'
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
        header = self.headers.get("Range")
        if options.ignore_range:
            header = None
        if_range = self.headers.get("If-Range")
        if header and if_range is not None and if_range != etag:
            header = None   # the file changed since the partial was fetched: all of it again
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
        if not options.ignore_range:
            self.send_header("Accept-Ranges", "bytes")
        if etag:
            self.send_header("ETag", etag)
        html = options.html and self.path.endswith(options.html)
        self.send_header("Content-Type", "text/html; charset=utf-8" if html else self.guess_type(path))
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        handle = open(path, "rb")
        handle.seek(start)
        self.remaining = end - start + 1
        if options.hang and self.path.endswith(options.hang):
            self.wfile.flush()
            time.sleep(3600)
        return handle

    rate = 0

    def copyfile(self, source, destination):
        chunk_size = min(64 * 1024, self.rate // 10) if self.rate else 64 * 1024
        cut_at = None
        if RangeHandler.options.cut_first is not None:
            with RangeHandler.lock:
                if self.path not in RangeHandler.cut_paths:
                    RangeHandler.cut_paths.add(self.path)
                    cut_at = RangeHandler.options.cut_first
        sent_here = 0
        while self.remaining > 0:
            if cut_at is not None and sent_here >= cut_at:
                destination.flush()
                self.close_connection = True
                self.connection.shutdown(2)   # a dropped connection, mid-body
                return
            chunk = source.read(min(chunk_size, self.remaining))
            if not chunk:
                break
            limit = RangeHandler.options.die_after
            # Counted before it is written, under a lock: counted after, a thread preempted
            # between its write and its count let another send its bytes too (a 188-byte
            # manifest written, not yet counted, gave the file 188 bytes past --die-after).
            with RangeHandler.lock:
                if limit is not None:
                    chunk = chunk[:max(0, limit - RangeHandler.sent)]
                RangeHandler.sent += len(chunk)
                dying = limit is not None and RangeHandler.sent >= limit
            if cut_at is not None:
                chunk = chunk[:max(0, cut_at - sent_here)]
            destination.write(chunk)
            sent_here += len(chunk)
            if dying:
                destination.flush()
                os._exit(0)   # as a killed server: every connection drops
            self.remaining -= len(chunk)
            if self.rate:
                time.sleep(len(chunk) / self.rate)


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass   # a client that hangs up mid-transfer is what the tests do on purpose


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("port", type=int)
    parser.add_argument("rate", type=int, nargs="?", default=0)
    parser.add_argument("--etag", action="store_true")
    parser.add_argument("--die-after", type=int)
    parser.add_argument("--cut-first", type=int)
    parser.add_argument("--hang")
    parser.add_argument("--ignore-range", action="store_true")
    parser.add_argument("--html")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    arguments = parser.parse_args()
    RangeHandler.rate = arguments.rate
    RangeHandler.options = arguments
    server = QuietServer(("127.0.0.1", arguments.port), partial(RangeHandler, directory=arguments.directory))
    server.daemon_threads = True
    if arguments.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*arguments.tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
