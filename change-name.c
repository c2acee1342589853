/*
 * Names of new changes: a few words of the commit's subject, or what the
 * change-name hook says.
 */
#include "git-compat-util.h"
#include "change-name.h"
#include "commit.h"
#include "gettext.h"
#include "hex.h"
#include "hook.h"
#include "refs.h"
#include "repository.h"
#include "run-command.h"
#include "strbuf.h"

/*
 * Names should be short enough to type: this many words at most, and no
 * longer than this many characters (a word is cut, not dropped).
 */
#define CHANGE_NAME_WORDS 3
#define CHANGE_NAME_MAX 24

/*
 * Words that say little about a commit: the design asks for the words of a
 * subject that are rare among subjects, and these are the most common ones.
 */
static const char *const filler_words[] = {
	"a", "an", "and", "as", "at", "be", "by", "for", "from", "in", "into",
	"is", "it", "of", "on", "or", "so", "that", "the", "this", "to",
	"when", "with",
};

static int is_filler(const char *word, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(filler_words); i++)
		if (strlen(filler_words[i]) == len &&
		    !strncasecmp(filler_words[i], word, len))
			return 1;
	return 0;
}

/*
 * A word is a run of letters and digits. Only its ASCII letters and
 * digits make it into the name (git's isalnum() knows no others), so that
 * the name is easy to type and cannot contain anything a refname forbids;
 * other bytes of UTF-8 text stay part of the word but are dropped.
 */
static int is_word_byte(unsigned char c)
{
	return isalnum(c) || c >= 0x80;
}

/* Append the word at `word` to `out` as it appears in names. */
static void add_word(struct strbuf *out, const char *word, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (isalnum(word[i]))
			strbuf_addch(out, tolower(word[i]));
}

void change_name_from_subject(const char *subject, size_t len,
			      struct strbuf *out)
{
	size_t start = out->len;
	const char *end = subject + len;
	int words = 0;

	while (subject < end && words < CHANGE_NAME_WORDS &&
	       out->len - start < CHANGE_NAME_MAX) {
		const char *word;
		size_t word_start = out->len;

		while (subject < end && !is_word_byte(*subject))
			subject++;
		word = subject;
		while (subject < end && is_word_byte(*subject))
			subject++;
		if (is_filler(word, subject - word))
			continue;

		if (words)
			strbuf_addch(out, '-');
		add_word(out, word, subject - word);
		if (out->len == word_start + !!words)
			strbuf_setlen(out, word_start); /* nothing typeable */
		else
			words++;
	}

	if (out->len - start > CHANGE_NAME_MAX)
		strbuf_setlen(out, start + CHANGE_NAME_MAX);
	/* A cut can leave a dash at the end. */
	while (out->len > start && out->buf[out->len - 1] == '-')
		strbuf_setlen(out, out->len - 1);
	if (out->len == start)
		strbuf_addstr(out, "change");
}

/*
 * The longest path component a hook may give. Files are named after refs,
 * and file systems limit a name to 255 bytes, which must leave room for
 * ".lock" and the suffix ("-123") that makes a name unique.
 */
#define CHANGE_NAME_COMPONENT_MAX 200

static int components_fit(const char *name)
{
	while (*name) {
		size_t len = strcspn(name, "/");

		if (len > CHANGE_NAME_COMPONENT_MAX)
			return 0;
		name += len;
		if (*name)
			name++;
	}
	return 1;
}

/*
 * Whether `name` (`len` bytes), as given by a hook, can name a change. It
 * must make a valid ref below refs/metas/ that the ref backends can store,
 * and must not start like the longer forms that name a change on the
 * command line ("metas/<name>", "refs/metas/<name>"), where it could not be
 * told apart from them.
 */
static int usable_change_name(const char *name, size_t len)
{
	struct strbuf refname = STRBUF_INIT;
	int ok;

	if (!len || strlen(name) != len || !components_fit(name))
		return 0;
	strbuf_addf(&refname, "refs/metas/%s", name);
	ok = !starts_with(name, "metas/") && !starts_with(name, "refs/") &&
	     !check_refname_format(refname.buf, 0);
	strbuf_release(&refname);
	return ok;
}

/* Append the name the change-name hook gives, or return -1. */
static int change_name_from_hook(struct repository *r, struct commit *commit,
				 struct strbuf *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf output = STRBUF_INIT;
	const char *hook = find_hook(r, "change-name");
	char *eol;
	int ret = -1;

	if (!hook)
		return -1;
	strvec_pushl(&cp.args, hook, oid_to_hex(&commit->object.oid), NULL);
	cp.no_stdin = 1;
	cp.trace2_hook_name = "change-name";
	if (capture_command(&cp, &output, 0))
		goto out;	/* the hook said why, or declined */

	eol = strchrnul(output.buf, '\n');
	strbuf_setlen(&output, eol - output.buf);
	strbuf_trim(&output);
	if (!output.len)
		goto out;
	if (!usable_change_name(output.buf, output.len)) {
		/* The name may be anything: show only its start. */
		warning(_("ignoring change name '%.*s' from the change-name hook"),
			(int)strnlen(output.buf, 64), output.buf);
		goto out;
	}
	strbuf_addbuf(out, &output);
	ret = 0;

out:
	strbuf_release(&output);
	return ret;
}

void change_name_for_commit(struct repository *r, struct commit *commit,
			    struct strbuf *out)
{
	const char *buffer, *subject;
	size_t len;

	if (!change_name_from_hook(r, commit, out))
		return;
	buffer = repo_get_commit_buffer(r, commit, NULL);
	len = find_commit_subject(buffer, &subject);
	change_name_from_subject(subject, len, out);
	repo_unuse_commit_buffer(r, commit, buffer);
}
