"""A ThreadingHTTPServer on a port the system picks: each request is
handled in a thread of its own. Prints `listening PORT PID`, then serves until
killed."""

import http.server
import os


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("hello from %s" % self.path).encode()  # @handle
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print("listening %d %d" % (server.server_address[1], os.getpid()), flush=True)
    server.serve_forever()  # @serve


main()
