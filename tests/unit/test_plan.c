/*
 * test_plan.c: TN-14, an ACP plan as one IRC line (ircd/bridge/plan.c).
 */
#include "compat.h"

#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/plan.h"
#include "tap.h"

int
main(void)
{
	struct acp_plan_entry e[] = {
		{ "read the tests", "high", "completed" },
		{ "fix the parser", "medium", "in_progress" },
		{ "run make", "low", "pending" },
		{ "\xc3\xa9t\xc3\xa9", "low", NULL },
	};
	char buf[512], small[24];
	size_t n;

	n = plan_line(e, 3, buf, sizeof(buf));
	is_str(buf, "plan: [x] 1. read the tests [>] 2. fix the parser "
	    "[ ] 3. run make", "boxes and numbers, in order");
	is_int((int)n, (int)strlen(buf), "the length returned");
	plan_line(e + 3, 1, buf, sizeof(buf));
	is_str(buf, "plan: [ ] 1. \xc3\xa9t\xc3\xa9", "no status: an empty box");
	n = plan_line(e, 3, small, sizeof(small));
	is_str(small, "plan: [x] 1. read th\xe2\x80\xa6",
	    "too long: cut, with an ellipsis");
	is_int((int)n, (int)strlen(small), "its length");
	ok(n < sizeof(small), "within the buffer");
	memset(small, 0, sizeof(small));
	/* 18 bytes: the cut at 14 falls inside the first é. */
	plan_line(e + 3, 1, small, 18);
	is_str(small, "plan: [ ] 1. \xe2\x80\xa6", "never half a character");
	is_int((int)plan_line(e, 0, buf, sizeof(buf)), 5, "no entries: just plan:");
	return tap_done();
}
