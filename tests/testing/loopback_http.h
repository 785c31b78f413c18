// A cpp-httplib server on 127.0.0.1 for tests and benchmarks (header-only: only the programs that
// serve HTTP link cpp-httplib).
#pragma once

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace pcglab::testing {

// Binds `server` to a free port on 127.0.0.1 and returns it; start it with listen_after_bind().
// Debian's cpp-httplib listens with a backlog of 5: a burst of connects beyond it loses SYNs, which
// the kernel resends after 1 s. So the socket listens again here with a real backlog.
inline int bind_loopback(httplib::Server& server, int backlog = 256) {
  int listen_fd = -1;
  server.set_socket_options([&listen_fd](int sock) {
    httplib::default_socket_options(sock);
    const int one = 1;
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    listen_fd = sock;
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  server.set_socket_options(httplib::default_socket_options);  // drop the reference to listen_fd
  if (listen_fd >= 0) ::listen(listen_fd, backlog);
  return port;
}

}  // namespace pcglab::testing
