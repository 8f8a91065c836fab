/*
 * sysexits.h: the exit statuses of sysexits(3) the daemon uses, spelled
 * out so that no BSD header is needed. log_fatalx() exits EX_SOFTWARE.
 */
#ifndef IRCD_SYSEXITS_H
#define IRCD_SYSEXITS_H

#define EX_OK		0
#define EX_USAGE	64	/* the command line is wrong */
#define EX_NOINPUT	66	/* an input file cannot be read */
#define EX_UNAVAILABLE	69	/* a service does not answer */
#define EX_SOFTWARE	70	/* an internal error */
#define EX_OSERR	71	/* the system failed (fork, poll, memory) */
#define EX_CANTCREAT	73	/* an output file would be overwritten */
#define EX_IOERR	74	/* reading or writing failed */
#define EX_CONFIG	78	/* the configuration is wrong */

#endif
