"""Serves a folder on 127.0.0.1 on a free port, writing the port to a file once listening.

Used by the end-to-end tests: the site is served exactly as a static host would serve it.
Usage: python3 static_server.py ROOT PORT_FILE
"""
import functools
import http.server
import sys


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm", ".js": "text/javascript"}

    def end_headers(self):
        # As public static hosts do (GitHub Pages among them): lets a page embedded in an iframe
        # sandboxed without allow-same-origin (an opaque origin) load the app's own files.
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, format, *args):  # keep the test output readable
        pass


def main() -> None:
    root, port_file = sys.argv[1], sys.argv[2]
    handler = functools.partial(QuietHandler, directory=root)
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        with open(port_file, "w") as f:
            f.write(str(server.server_address[1]))
        server.serve_forever()


if __name__ == "__main__":
    main()
