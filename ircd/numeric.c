/*
 * numeric.c: the text of every numeric reply, in one place. Each format
 * is what follows "<server> <NNN> <nick> "; arguments are strings unless
 * the format says otherwise. Texts follow the Modern IRC documents.
 */
#include "compat.h"

#include <stddef.h>

#include "ircd/numeric.h"

static const char *const numeric_table[1000] = {
	[RPL_WELCOME] = ":Welcome to the %s IRC Network %s",	/* network, prefix */
	[RPL_YOURHOST] = ":Your host is %s, running version %s",
	[RPL_CREATED] = ":This server was created %s",
	[RPL_MYINFO] = "%s %s %s %s %s",	/* server version umodes cmodes cmodes-with-arg */
	[RPL_ISUPPORT] = "%s :are supported by this server",
	[RPL_UMODEIS] = "%s",
	[RPL_LUSERCLIENT] = ":There are %u users and %u invisible on %u servers",
	[RPL_LUSEROP] = "%u :operator(s) online",
	[RPL_LUSERUNKNOWN] = "%u :unknown connection(s)",
	[RPL_LUSERCHANNELS] = "%u :channels formed",
	[RPL_LUSERME] = ":I have %u clients and %u servers",
	[RPL_ADMINME] = "%s :Administrative info",
	[RPL_ADMINLOC1] = ":%s",
	[RPL_ADMINLOC2] = ":%s",
	[RPL_ADMINEMAIL] = ":%s",
	[RPL_TRYAGAIN] = "%s :Please wait a while and try again.",
	[RPL_LOCALUSERS] = "%u %u :Current local users %u, max %u",
	[RPL_GLOBALUSERS] = "%u %u :Current global users %u, max %u",
	[RPL_WHOISCERTFP] = "%s :has client certificate fingerprint %s",
	[RPL_AWAY] = "%s :%s",			/* nick, message */
	[RPL_USERHOST] = ":%s",
	[RPL_ISON] = ":%s",
	[RPL_UNAWAY] = ":You are no longer marked as being away",
	[RPL_NOWAWAY] = ":You have been marked as being away",
	[RPL_WHOISREGNICK] = "%s :has identified for this nick",
	[RPL_WHOISUSER] = "%s %s %s * :%s",	/* nick user host realname */
	[RPL_WHOISSERVER] = "%s %s :%s",	/* nick server info */
	[RPL_WHOISOPERATOR] = "%s :is an IRC operator",
	[RPL_WHOWASUSER] = "%s %s %s * :%s",
	[RPL_ENDOFWHO] = "%s :End of /WHO list",
	[RPL_WHOISIDLE] = "%s %lld %lld :seconds idle, signon time",
	[RPL_ENDOFWHOIS] = "%s :End of /WHOIS list",
	[RPL_WHOISCHANNELS] = "%s :%s",
	[RPL_WHOISSPECIAL] = "%s :%s",
	[RPL_LISTSTART] = "Channel :Users  Name",
	[RPL_LIST] = "%s %u :%s",		/* channel, visible users, topic */
	[RPL_LISTEND] = ":End of /LIST",
	[RPL_CHANNELMODEIS] = "%s %s",		/* channel, "+nt key" */
	[RPL_CREATIONTIME] = "%s %lld",
	[RPL_WHOISACCOUNT] = "%s %s :is logged in as",
	[RPL_NOTOPIC] = "%s :No topic is set",
	[RPL_TOPIC] = "%s :%s",
	[RPL_TOPICWHOTIME] = "%s %s %lld",
	[RPL_WHOISBOT] = "%s :is a bot on %s",	/* nick, network */
	[RPL_INVITELIST] = "%s",		/* channel */
	[RPL_ENDOFINVITELIST] = ":End of /INVITE list",
	[RPL_WHOISACTUALLY] = "%s %s@%s %s :Actual user@host, Actual IP",
	[RPL_INVITING] = "%s %s",		/* nick, channel */
	[RPL_VERSION] = "%s %s :%s",		/* version, server, comments */
	[RPL_WHOREPLY] = "%s %s %s %s %s %s :0 %s",
	[RPL_NAMREPLY] = "%s %s :%s",		/* = or @, channel, names */
	[RPL_WHOSPCRPL] = "%s",			/* the fields, already joined */
	[RPL_LINKS] = "%s %s :%d %s",
	[RPL_ENDOFLINKS] = "%s :End of /LINKS list",
	[RPL_ENDOFNAMES] = "%s :End of /NAMES list",
	[RPL_BANLIST] = "%s %s %s %lld",	/* channel mask setter time */
	[RPL_ENDOFBANLIST] = "%s :End of channel ban list",
	[RPL_EXCEPTLIST] = "%s %s %s %lld",	/* channel mask setter time */
	[RPL_ENDOFEXCEPTLIST] = "%s :End of channel exception list",
	[RPL_INVEXLIST] = "%s %s %s %lld",	/* channel mask setter time */
	[RPL_ENDOFINVEXLIST] = "%s :End of channel invite exception list",
	[RPL_ENDOFWHOWAS] = "%s :End of WHOWAS",
	[RPL_INFO] = ":%s",
	[RPL_MOTD] = ":- %s",
	[RPL_ENDOFINFO] = ":End of INFO list",
	[RPL_MOTDSTART] = ":- %s Message of the day - ",
	[RPL_ENDOFMOTD] = ":End of /MOTD command.",
	[RPL_WHOISHOST] = "%s :is connecting from %s@%s %s",
	[RPL_WHOISMODES] = "%s :is using modes %s",
	[RPL_YOUREOPER] = ":You are now an IRC operator",
	[RPL_REHASHING] = "%s :Rehashing",
	[RPL_TIME] = "%s %lld 0 :%s",		/* server, unix time, human time */
	[ERR_UNKNOWNERROR] = "%s :%s",
	[ERR_NOSUCHNICK] = "%s :No such nick/channel",
	[ERR_NOSUCHSERVER] = "%s :No such server",
	[ERR_NOSUCHCHANNEL] = "%s :No such channel",
	[ERR_CANNOTSENDTOCHAN] = "%s :%s",	/* channel, why (channel.c) */
	[ERR_TOOMANYCHANNELS] = "%s :You have joined too many channels",
	[ERR_WASNOSUCHNICK] = "%s :There was no such nickname",
	[ERR_TOOMANYTARGETS] = "%s :Too many targets (limit %d)",
	[ERR_NOORIGIN] = ":No origin specified",
	[ERR_NORECIPIENT] = ":No recipient given (%s)",
	[ERR_NOTEXTTOSEND] = ":No text to send",
	[ERR_INPUTTOOLONG] = ":Input line was too long",
	[ERR_UNKNOWNCOMMAND] = "%s :Unknown command",
	[ERR_NOMOTD] = ":MOTD File is missing",
	[ERR_NONICKNAMEGIVEN] = ":No nickname given",
	[ERR_ERRONEUSNICKNAME] = "%s :Erroneous nickname",
	[ERR_NICKNAMEINUSE] = "%s :Nickname is already in use",
	[ERR_USERNOTINCHANNEL] = "%s %s :They aren't on that channel",
	[ERR_NOTONCHANNEL] = "%s :You're not on that channel",
	[ERR_USERONCHANNEL] = "%s %s :is already on channel",
	[ERR_NOTREGISTERED] = ":You have not registered",
	[ERR_NEEDMOREPARAMS] = "%s :Not enough parameters",
	[ERR_ALREADYREGISTERED] = ":You may not reregister",
	[ERR_PASSWDMISMATCH] = ":Password incorrect",
	[ERR_YOUREBANNEDCREEP] = ":%s",
	[ERR_CHANNELISFULL] = "%s :Cannot join channel (+l)",
	[ERR_UNKNOWNMODE] = "%c :is an unknown mode char to me",
	[ERR_INVITEONLYCHAN] = "%s :Cannot join channel (+i)",
	[ERR_BANNEDFROMCHAN] = "%s :Cannot join channel (+b)",
	[ERR_BADCHANNELKEY] = "%s :Cannot join channel (+k)",
	[ERR_BADCHANMASK] = "%s :Bad Channel Mask",
	[ERR_BANLISTFULL] = "%s %c :Channel list is full",	/* +b +e +I */
	[ERR_NOPRIVILEGES] = ":Permission Denied- You're not an IRC operator",
	[ERR_CHANOPRIVSNEEDED] = "%s :You're not channel operator",
	[ERR_CANTKILLSERVER] = ":You cant kill a server!",
	[ERR_NOOPERHOST] = ":No O-lines for your host",
	[ERR_UMODEUNKNOWNFLAG] = ":Unknown MODE flag",
	[ERR_USERSDONTMATCH] = ":Cant change mode for other users",
	[ERR_HELPNOTFOUND] = "%s :No help available on this topic",
	[ERR_INVALIDKEY] = "%s :Key is not well-formed",
	[RPL_HELPSTART] = "%s :%s",
	[RPL_HELPTXT] = "%s :%s",
	[RPL_ENDOFHELP] = "%s :%s",
	[ERR_INVALIDMODEPARAM] = "%s %c %s :%s",	/* target, mode, param, text */
	[RPL_MONONLINE] = ":%s",		/* nick!user@host,... */
	[RPL_MONOFFLINE] = ":%s",		/* nick,... */
	[RPL_MONLIST] = ":%s",
	[RPL_ENDOFMONLIST] = ":End of MONITOR list",
	[ERR_MONLISTFULL] = "%d %s :Monitor list is full.",	/* limit, targets */
	[RPL_LOGGEDIN] = "%s %s :You are now logged in as %s",
	[RPL_LOGGEDOUT] = "%s :You are now logged out",
	[ERR_NICKLOCKED] = ":You must use a nick assigned to you",
	[RPL_SASLSUCCESS] = ":SASL authentication successful",
	[ERR_SASLFAIL] = ":SASL authentication failed",
	[ERR_SASLTOOLONG] = ":SASL message too long",
	[ERR_SASLABORTED] = ":SASL authentication aborted",
	[ERR_SASLALREADY] = ":You have already authenticated using SASL",
	[RPL_SASLMECHS] = "%s :are available SASL mechanisms",
	[RPL_WHOISSECURE] = "%s :is using a secure connection",
};

const char *
numeric_format(int n)
{
	if (n < 0 || n >= 1000)
		return NULL;
	return numeric_table[n];
}
