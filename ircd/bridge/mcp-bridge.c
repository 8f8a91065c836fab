/*
 * mcp-bridge.c: "agentircd --mcp-bridge SOCKET", the program an agent
 * starts as its MCP server (mcp.h). It sends the session's token
 * (AGENTIRCD_MCP_TOKEN) as the first line, then copies stdin to the
 * daemon's Unix socket and the socket to stdout, bytes as they are, until
 * either side closes. It runs in the agent's process tree, not in the
 * daemon: no event loop, no daemon state.
 */
#include "compat.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ircd/bridge/mcp.h"
#include "ircd/sysexits.h"

/*
 * Its exits: EX_USAGE, no token or no usable socket path; EX_UNAVAILABLE,
 * the daemon's socket does not answer; EX_IOERR, the token could not be
 * sent; EX_OSERR, poll() failed.
 */

static int
bridge_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

int
mcp_bridge_main(const char *path)
{
	struct sockaddr_un sun;
	struct pollfd pfd[2];
	const char *token = getenv("AGENTIRCD_MCP_TOKEN");
	char buf[65536];
	int fd;

	if (token == NULL || strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "agentircd: --mcp-bridge needs "
		    "AGENTIRCD_MCP_TOKEN and a socket path\n");
		return EX_USAGE;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strlcpy(sun.sun_path, path, sizeof(sun.sun_path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		fprintf(stderr, "agentircd: %s: %s\n", path, strerror(errno));
		return EX_UNAVAILABLE;
	}
	if (bridge_write_all(fd, token, strlen(token)) == -1 ||
	    bridge_write_all(fd, "\n", 1) == -1)
		return EX_IOERR;
	/* Relay both ways until either side closes. */
	pfd[0].fd = STDIN_FILENO;
	pfd[0].events = POLLIN;
	pfd[1].fd = fd;
	pfd[1].events = POLLIN;
	for (;;) {
		ssize_t n;

		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			return EX_OSERR;
		}
		if (pfd[0].fd != -1 && (pfd[0].revents & (POLLIN | POLLHUP))) {
			n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n <= 0) {
				/* No more requests: let the answers still
				 * come back. */
				shutdown(fd, SHUT_WR);
				pfd[0].fd = -1;
				continue;
			}
			if (bridge_write_all(fd, buf, (size_t)n) == -1)
				break;
		}
		if (pfd[1].revents & (POLLIN | POLLHUP)) {
			n = read(fd, buf, sizeof(buf));
			if (n <= 0)
				break;
			if (bridge_write_all(STDOUT_FILENO, buf,
			    (size_t)n) == -1)
				break;
		}
	}
	close(fd);
	return 0;
}
