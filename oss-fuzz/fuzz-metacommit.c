#define USE_THE_REPOSITORY_VARIABLE

#include "git-compat-util.h"
#include "fuzz-in-memory-repo.h"
#include "commit.h"
#include "hash.h"
#include "object.h"
#include "metacommit.h"
#include "object-file.h"
#include "repository.h"
#include "strbuf.h"

/*
 * Feed arbitrary bytes to the metacommit parser as the buffer of a commit
 * object, the way a metacommit read from the object store reaches it:
 * parse_commit_buffer() gives the commit its parents and caches the buffer,
 * which parse_metacommit() and is_metacommit() then read back with
 * repo_get_commit_buffer(). Nothing touches the disk.
 *
 * Beyond not crashing, the result must agree with what the parser promises
 * in metacommit.h; a disagreement is reported as a BUG(), i.e. a crash.
 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_metacommit(struct commit *commit)
{
	struct metacommit_data md = METACOMMIT_DATA_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct commit_list *p;
	size_t parents = 0;
	int type;

	for (p = commit->parents; p; p = p->next)
		parents++;

	type = parse_metacommit(the_repository, commit, &md, &err);
	switch (type) {
	case -1:
		if (!err.len || !is_null_oid(&md.content) || md.replace.nr ||
		    md.origin.nr || md.abandoned)
			BUG("a malformed metacommit must leave the data empty and say why");
		break;
	case METACOMMIT_TYPE_NONE:
		if (err.len || !is_null_oid(&md.content) || md.replace.nr ||
		    md.origin.nr || md.abandoned)
			BUG("a normal commit must leave the data and err alone");
		break;
	case METACOMMIT_TYPE_NORMAL:
	case METACOMMIT_TYPE_ABANDONED:
		if (err.len || !commit->parents ||
		    !oideq(&md.content, &commit->parents->item->object.oid) ||
		    1 + md.replace.nr + md.origin.nr != parents ||
		    md.abandoned != (type == METACOMMIT_TYPE_ABANDONED))
			BUG("the data of a metacommit must describe its parents");
		break;
	default:
		BUG("parse_metacommit() returned %d", type);
	}

	if (is_metacommit(the_repository, commit) != (type != METACOMMIT_TYPE_NONE))
		BUG("is_metacommit() disagrees with parse_metacommit()");

	metacommit_data_clear(&md);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct object_id oid;
	struct commit *commit;
	char *buf;

	setup_repository();

	/* Object buffers are NUL-terminated, as the parsers expect. */
	buf = xmemdupz(data, size);
	hash_object_file(the_hash_algo, buf, size, OBJ_COMMIT, &oid);
	commit = lookup_commit(the_repository, &oid);

	/*
	 * A buffer that is not a commit never gets as far as the metacommit
	 * parser: its commit is not parsed, and reading it would go to the
	 * (here absent) object store.
	 */
	if (commit && !parse_commit_buffer(the_repository, commit, buf, size, 0)) {
		set_commit_buffer(the_repository, commit, buf, size);
		buf = NULL;
		check_metacommit(commit);
	}

	free(buf);
	reset_repository();
	return 0;
}
