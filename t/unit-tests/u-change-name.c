#include "unit-test.h"
#include "change-name.h"
#include "refs.h"
#include "strbuf.h"

static void check_name(const char *subject, const char *expect)
{
	struct strbuf name = STRBUF_INIT;
	struct strbuf refname = STRBUF_INIT;

	change_name_from_subject(subject, strlen(subject), &name);
	cl_assert_equal_s(name.buf, expect);

	/* Whatever the subject, the name makes a valid ref. */
	strbuf_addf(&refname, "refs/metas/%s", name.buf);
	cl_assert_equal_i(check_refname_format(refname.buf, 0), 0);

	strbuf_release(&refname);
	strbuf_release(&name);
}

void test_change_name__words_of_the_subject(void)
{
	check_name("Add the parser", "add-parser");
	check_name("This is a test", "test");
	check_name("More testing", "more-testing");
}

void test_change_name__at_most_three_words(void)
{
	check_name("refs: teach the files backend to pack refs", "refs-teach-files");
}

void test_change_name__lowercase_ascii_only(void)
{
	check_name("Fix \"git grep -P\" on UTF-8", "fix-git-grep");
	check_name("Übersetzung für café", "bersetzung-fr-caf");
	check_name("修复 parser", "parser");
}

void test_change_name__long_words_are_cut(void)
{
	check_name("Supercalifragilisticexpialidocious parser",
		   "supercalifragilisticexpi");
	check_name("abcdefghijklmnopqrstuvw xyz", "abcdefghijklmnopqrstuvw");
}

void test_change_name__hostile_subjects(void)
{
	check_name("../../refs/heads/main", "refs-heads-main");
	check_name("@{-1}", "1");
	check_name("a..b~c^d:e?f*g[h\\i", "b-c-d");
	check_name("tab\there\001ctl\x7f", "tab-here-ctl");
	check_name("foo.lock", "foo-lock");
}

void test_change_name__nothing_usable(void)
{
	check_name("", "change");
	check_name("   ", "change");
	check_name("the a an", "change");
	check_name("/// ...", "change");
}
