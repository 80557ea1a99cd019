"""Serves a folder on 127.0.0.1 on a free port, writing the port to a file once listening.

Used by the end-to-end tests and the benchmarks: the site is served exactly as a static host
would serve it, with `Access-Control-Allow-Origin: *` as GitHub Pages sends it; `--no-cors` leaves
that header out, as `python3 -m http.server` and many servers do. With `--gzip`, text and WebAssembly files are sent gzip-compressed to a browser
that accepts it, as public static hosts do (GitHub Pages, Cloudflare Pages, Netlify): the load
benchmark measures what a person would download.
Usage: python3 static_server.py ROOT PORT_FILE [--gzip] [--no-cors]
"""
import functools
import gzip
import http.server
import os
import sys

COMPRESSED = (".wasm", ".js", ".css", ".html", ".json", ".svg", ".webmanifest")


@functools.lru_cache(maxsize=64)
def compressed_at(path: str, mtime: float) -> bytes:
    with open(path, "rb") as f:
        return gzip.compress(f.read(), compresslevel=6)


def compressed(path: str) -> bytes:
    """The file gzip-compressed, compressed once (a host serves it from its cache too)."""
    return compressed_at(path, os.path.getmtime(path))


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm", ".js": "text/javascript"}

    def __init__(self, *args, compress=False, cors=True, **kwargs):
        self.compress = compress
        self.cors = cors
        super().__init__(*args, **kwargs)

    def end_headers(self):
        # As public static hosts do (GitHub Pages among them): lets a page embedded in an iframe
        # sandboxed without allow-same-origin (an opaque origin) load the app's own files.
        if self.cors:
            self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def do_GET(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        wants_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (self.compress and wants_gzip and path.endswith(COMPRESSED) and os.path.isfile(path)):
            return super().do_GET()
        if os.path.isdir(self.translate_path(self.path)) and not self.path.split("?")[0].endswith("/"):
            return super().do_GET()  # the standard redirect to the folder's address
        body = compressed(path)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # keep the test output readable
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A browser that closes a connection mid-transfer (a page closed while a module or the
        # service worker's copy was still arriving) is normal here, not an error to print.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main() -> None:
    root, port_file = sys.argv[1], sys.argv[2]
    handler = functools.partial(QuietHandler, directory=root, compress="--gzip" in sys.argv[3:], cors="--no-cors" not in sys.argv[3:])
    with QuietServer(("127.0.0.1", 0), handler) as server:
        with open(port_file, "w") as f:
            f.write(str(server.server_address[1]))
        server.serve_forever()


if __name__ == "__main__":
    main()
