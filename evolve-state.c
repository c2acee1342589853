/*
 * The state of a stopped "git evolve" in $GIT_DIR/evolve/ (see
 * evolve-state.h): its files, and what other commands ask of it ("git
 * status", "git commit" of a resolution, gc).
 */
/* for DEFAULT_ABBREV, which depends on the core.abbrev config */
#define USE_THE_REPOSITORY_VARIABLE

#include "git-compat-util.h"
#include "evolve-state.h"
#include "abspath.h"
#include "change-graph.h"
#include "commit.h"
#include "dir.h"
#include "hex.h"
#include "object-name.h"
#include "path.h"
#include "refs.h"
#include "repository.h"
#include "strbuf.h"
#include "wrapper.h"

char *evolve_state_path(struct repository *r, const char *name)
{
	return repo_git_path(r, EVOLVE_STATE_DIR "/%s", name);
}

int evolve_read_state_oid(struct repository *r, const char *name,
			  struct object_id *oid)
{
	char *path = evolve_state_path(r, name);
	struct strbuf buf = STRBUF_INIT;
	int ret = strbuf_read_file(&buf, path, 0) < 0 ||
		  get_oid_hex(buf.buf, oid) ? -1 : 0;

	strbuf_release(&buf);
	free(path);
	return ret;
}

void evolve_write_state(struct repository *r, const char *name,
			const char *value)
{
	char *path = evolve_state_path(r, name);

	write_file(path, "%s", value);
	free(path);
}

int evolve_in_progress(struct repository *r)
{
	char *path = repo_git_path(r, EVOLVE_STATE_DIR);
	int ret = is_directory(path);

	free(path);
	return ret;
}

int evolve_describe_stop(struct repository *r, char **current, char **onto,
			 int *head_moved)
{
	struct object_id oid, head;

	*current = *onto = NULL;
	*head_moved = 0;
	if (!evolve_in_progress(r))
		return 0;
	if (!evolve_read_state_oid(r, "current", &oid))
		*current = name_change_commit(r, &oid);
	if (!evolve_read_state_oid(r, "onto", &oid)) {
		*onto = xstrdup(repo_find_unique_abbrev(r, &oid, DEFAULT_ABBREV));
		*head_moved = !refs_read_ref(get_main_ref_store(r), "HEAD", &head) &&
			      !oideq(&head, &oid) && !evolve_made_on(r, &head, &oid);
	}
	return 1;
}

int evolve_made_on(struct repository *r, const struct object_id *oid,
		   const struct object_id *onto)
{
	struct commit *commit = lookup_commit_reference_gently(r, oid, 1);

	return commit && !repo_parse_commit(r, commit) && commit->parents &&
	       !commit->parents->next &&
	       oideq(&commit->parents->item->object.oid, onto);
}

int evolve_takes_commit(struct repository *r, const struct object_id *commit)
{
	struct object_id onto;

	return !evolve_read_state_oid(r, "onto", &onto) &&
	       evolve_made_on(r, commit, &onto);
}

int evolve_stopped_onto(struct repository *r, const struct object_id *onto,
			struct object_id *current)
{
	struct object_id stopped_onto;

	return !evolve_read_state_oid(r, "onto", &stopped_onto) &&
	       oideq(&stopped_onto, onto) &&
	       !evolve_read_state_oid(r, "current", current);
}

void evolve_remove_state(struct repository *r)
{
	struct strbuf path = STRBUF_INIT;

	repo_git_path_replace(r, &path, EVOLVE_STATE_DIR);
	remove_dir_recursively(&path, 0);
	strbuf_release(&path);
}
