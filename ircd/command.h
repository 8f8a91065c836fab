/*
 * command.h: the sorted command table and dispatch: parameter counts,
 * the registration gate, flood penalty and the 421/451/461 replies.
 */
#ifndef IRCD_COMMAND_H
#define IRCD_COMMAND_H

#include <stddef.h>

struct client;
struct message;

#define CMD_UNREG	0x01	/* allowed before registration */
#define CMD_REG		0x02	/* allowed after registration */
#define CMD_OPER	0x04	/* operators only (481) */
#define CMD_NOHELP	0x08	/* sent by client software: not in HELP */
#define CMD_ANY		(CMD_UNREG | CMD_REG)

/*
 * A row of the command table: how dispatch runs the command, and what
 * HELP shows of it (usage as 704, then each line of text as 705).
 */
struct command {
	const char	*name;
	void		(*handler)(struct client *, struct message *);
	int		 min;		/* parameters needed, else 461 */
	unsigned	 flags;
	unsigned	 penalty;	/* flood cost in ms */
	const char	*usage;
	const char	*text[3];	/* lines; a NULL ends fewer than 3 */
};

/* Dispatch one parsed line from c. */
void			 command_dispatch(struct client *, struct message *);
/* The row of the command called name, in any case, or NULL. */
const struct command	*command_find(const char *name);
/* The rows in name order, for HELP's index; NULL past the last. */
const struct command	*command_at(size_t i);

/* Handlers, by area. */
/*
 * CONNECT and SQUIT act on server links, which the core knows nothing of:
 * ircd/link/ sets these at start (NULL, or a field NULL: no such server).
 */
struct oper_link_ops {
	void	(*connect)(struct client *, const char *server);
	void	(*squit)(struct client *, const char *server,
		    const char *reason);
};
void	oper_set_link_ops(const struct oper_link_ops *);

#define H(n) void n(struct client *, struct message *)
/* cmd-register.c */
H(cmd_pass); H(cmd_nick); H(cmd_user); H(cmd_ping); H(cmd_pong); H(cmd_quit);
/* cmd-cap.c, sasl.c */
H(cmd_cap); H(cmd_authenticate);
/* cmd-message.c */
H(cmd_privmsg); H(cmd_notice); H(cmd_tagmsg);
/* cmd-channel.c */
H(cmd_join); H(cmd_part); H(cmd_topic); H(cmd_names); H(cmd_list);
H(cmd_invite); H(cmd_kick); H(cmd_drop);
/* cmd-mode.c */
H(cmd_mode);
/* cmd-query.c */
H(cmd_who); H(cmd_whois); H(cmd_whowas); H(cmd_away); H(cmd_ison);
H(cmd_userhost); H(cmd_links); H(cmd_lusers); H(cmd_motd); H(cmd_version);
H(cmd_time); H(cmd_info); H(cmd_help); H(cmd_admin); H(cmd_setname);
H(cmd_monitor);
/* cmd-history.c */
H(cmd_chathistory);
/* readmarker.c, redact.c */
H(cmd_markread); H(cmd_redact);
/* cmd-oper.c */
H(cmd_oper); H(cmd_kill); H(cmd_wallops); H(cmd_rehash); H(cmd_die);
H(cmd_connect); H(cmd_squit);
#undef H

/* Registration completes when NICK, USER (and PASS/CAP) are done. */
void	register_try(struct client *);
/* The welcome burst parts reused by commands (LUSERS, MOTD, VERSION). */
void	send_lusers(struct client *);
void	send_motd(struct client *);
void	send_isupport(struct client *);
/* (Re)read the MOTD file named in the config; kept in memory. */
void	motd_load(void);
void	motd_free(void);

#endif
