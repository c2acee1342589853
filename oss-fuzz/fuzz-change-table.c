#define USE_THE_REPOSITORY_VARIABLE

#include "git-compat-util.h"
#include "fuzz-in-memory-repo.h"
#include "change-table.h"
#include "commit.h"
#include "hash.h"
#include "object.h"
#include "hex.h"
#include "repository.h"
#include "strbuf.h"
#include "string-list.h"

/*
 * Build a change table from arbitrary commit buffers, in memory.
 *
 * The input is split at NUL bytes into at most MAX_CHANGES buffers. Buffer
 * number i (from 0) is the head of one change, refs/metas/c<i> (every
 * third one is hidden, refs/hiddenmetas/c<i>, and every third a remote
 * one, refs/remotes/origin/metas/c<i>), and is the commit whose SHA-1
 * object name has every byte i + 1 (0101...01 for the first, 0202...02 for
 * the second, in hex), so that buffers can name each other as parents: a
 * metacommit can have another change's head as its content. (Unlike
 * small numbers, such names do not all fall in the same bucket of the
 * object and change hash tables, which hash the first bytes.)
 *
 * As change_table_add_all_visible() does, a change whose head does not
 * parse as a commit is skipped; the others are added with
 * change_table_add(). The table must then answer for every change that
 * was added, and for no other.
 */

#define MAX_CHANGES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const namespaces[] = {
	"refs/metas/",
	"refs/hiddenmetas/",
	"refs/remotes/origin/metas/",
};

static int is_refname(const char *refname, void *cb_data)
{
	return !strcmp(refname, cb_data);
}

static int count_refname(const char *refname UNUSED, void *cb_data)
{
	(*(size_t *)cb_data)++;
	return 0;
}

static void check_change(struct change_table *table, const char *refname,
			 const struct object_id *head)
{
	struct change_head *change = change_table_get(table, refname);
	size_t nr = 0;

	if (!change || !oideq(&change->head, head))
		BUG("change %s is not in the table", refname);
	if (change->hidden != !!starts_with(refname, "refs/hiddenmetas/") ||
	    change->remote != !!starts_with(refname, "refs/remotes/"))
		BUG("change %s has the wrong flags", refname);
	if (!change_table_has_change_referencing(table, &change->head) ||
	    !change_table_has_change_referencing(table, &change->content))
		BUG("change %s is not indexed", refname);
	if (change_table_for_each_referencing(table, &change->head,
					      is_refname, (void *)refname) != 1 ||
	    change_table_for_each_referencing(table, &change->content,
					      is_refname, (void *)refname) != 1)
		BUG("change %s is not indexed by its head and content", refname);
	if (change_table_for_each_referencing(table, &change->head,
					      count_refname, &nr) || !nr)
		BUG("the changes referencing %s cannot be listed", refname);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct change_table table;
	struct string_list added = STRING_LIST_INIT_DUP;
	struct string_list refnames = STRING_LIST_INIT_DUP;
	struct strbuf refname = STRBUF_INIT, err = STRBUF_INIT;
	const char *p = (const char *)data, *end = p + size;
	size_t i;

	setup_repository();
	change_table_init(&table);

	for (i = 0; i < MAX_CHANGES && p < end; i++) {
		const char *nul = memchr(p, '\0', end - p);
		size_t len = (nul ? nul : end) - p;
		/* Object buffers are NUL-terminated, as the parsers expect. */
		char *buf = xmemdupz(p, len);
		struct object_id oid;
		struct commit *commit;

		p += len + !!nul;

		oidclr(&oid, the_hash_algo);
		memset(oid.hash, i + 1, the_hash_algo->rawsz);
		strbuf_reset(&refname);
		strbuf_addf(&refname, "%sc%"PRIuMAX, namespaces[i % 3], (uintmax_t)i);

		/* An earlier buffer may have named this one as a tree. */
		commit = lookup_commit(the_repository, &oid);
		if (!commit ||
		    parse_commit_buffer(the_repository, commit, buf, len, 0)) {
			free(buf);
			continue;
		}
		set_commit_buffer(the_repository, commit, buf, len);

		strbuf_reset(&err);
		if (change_table_add(&table, the_repository, refname.buf,
				     commit, &err)) {
			if (!err.len)
				BUG("change_table_add() failed without saying why");
			if (change_table_get(&table, refname.buf))
				BUG("change_table_add() failed but added %s",
				    refname.buf);
			continue;
		}
		string_list_append(&added, refname.buf)->util =
			oiddup(&commit->object.oid);
	}

	for (i = 0; i < added.nr; i++)
		check_change(&table, added.items[i].string, added.items[i].util);

	change_table_refnames(&table, &refnames);
	string_list_sort(&added);
	if (refnames.nr != added.nr)
		BUG("the table has %"PRIuMAX" changes, not %"PRIuMAX,
		    (uintmax_t)refnames.nr, (uintmax_t)added.nr);
	for (i = 0; i < added.nr; i++)
		if (strcmp(refnames.items[i].string, added.items[i].string))
			BUG("the table lists %s, not %s",
			    refnames.items[i].string, added.items[i].string);

	change_table_clear(&table);
	string_list_clear(&added, 1);
	string_list_clear(&refnames, 0);
	strbuf_release(&refname);
	strbuf_release(&err);
	reset_repository();
	return 0;
}
