/*
 * "git evolve": rebase the changes whose parent is obsolete onto its
 * newest version, until no change has an obsolete parent. "git next" and
 * "git prev": move HEAD along a stack of changes.
 */

/* for DEFAULT_ABBREV, which depends on the core.abbrev config */
#define USE_THE_REPOSITORY_VARIABLE

#include "builtin.h"
#include "advice.h"
#include "change-graph.h"
#include "commit.h"
#include "config.h"
#include "environment.h"
#include "evolve.h"
#include "gettext.h"
#include "object-name.h"
#include "parse-options.h"
#include "pretty.h"
#include "repository.h"
#include "run-command.h"
#include "strbuf.h"

static const char * const evolve_usage[] = {
	N_("git evolve [--dry-run] [--auto-merge] [--no-follow-up-merges] [-q | --quiet] [--[no-]progress] [<upstream>...]"),
	N_("git evolve (--continue | --skip | --abort)"),
	NULL,
};

/* A ref as the steps name it: "metas/x", "origin/metas/x". */
static const char *display_name(const char *refname)
{
	if (!skip_prefix(refname, "refs/remotes/", &refname))
		skip_prefix(refname, "refs/", &refname);
	return refname;
}

/* A branch by its short name, as "git branch" shows it. */
static const char *branch_name(const char *refname)
{
	if (skip_prefix(refname, "refs/heads/", &refname))
		return refname;
	return display_name(refname);
}

/* A change by its first name, a commit carried along by its object name. */
static const char *step_name(const struct evolve_step *step)
{
	if (step->refnames.nr)
		return display_name(step->refnames.items[0].string);
	return repo_find_unique_abbrev(the_repository, &step->commit,
				       DEFAULT_ABBREV);
}

static void print_step(const struct evolve_step *step)
{
	const char *name = step_name(step);

	switch (step->type) {
	case EVOLVE_STEP_CATCH_UP:
		printf(_("fast-forwarding %s to %s\n"), name, step->onto);
		break;
	case EVOLVE_STEP_TAKE_FETCHED:
		printf(_("taking %s, fetched with the change id of %s, as its new version\n"),
		       step->onto, name);
		break;
	case EVOLVE_STEP_REBASE:
		printf(_("rebasing %s onto %s\n"), name, step->onto);
		break;
	case EVOLVE_STEP_DELETE_EMPTY:
		printf(_("deleting %s: it became empty on %s\n"), name, step->onto);
		break;
	case EVOLVE_STEP_DROP_ABANDONED:
		printf(_("dropping abandoned %s\n"), name);
		break;
	case EVOLVE_STEP_DELETE_LANDED:
		printf(_("deleting %s: it is in %s\n"), name, step->onto);
		break;
	case EVOLVE_STEP_DELETE_LANDED_AS:
		printf(_("deleting %s: it is in %s as %s, "
			 "which has its change id\n"),
		       name, step->onto, step->merge);
		break;
	case EVOLVE_STEP_MERGE_DIVERGENT:
		printf(_("merging the divergent versions of %s and %s\n"), name,
		       step->onto);
		break;
	case EVOLVE_STEP_JOIN:
		printf(_("joining %s to %s, which has all of it\n"),
		       name, step->onto);
		break;
	case EVOLVE_STEP_SQUASH_MERGE:
		printf(_("squashing %s into the divergent versions of %s and %s\n"),
		       display_name(step->merge), name, step->onto);
		break;
	}
}

/*
 * Say where the branches that follow their commit go, after the steps
 * that rewrote it. The names are a report's, unquoted, as the steps'.
 */
static void print_moved_refs(const struct string_list *moved)
{
	const struct string_list_item *ref;

	for_each_string_list_item(ref, moved)
		printf(_("moving branch %s to %s\n"), branch_name(ref->string),
		       (const char *)ref->util);
}

/* Say which branches evolve left alone because another worktree has them. */
static void print_skipped_refs(const struct string_list *skipped)
{
	const struct string_list_item *ref;

	for_each_string_list_item(ref, skipped)
		warning(_("not moving branch '%s': it is checked out in '%s'"),
			branch_name(ref->string), (const char *)ref->util);
	if (skipped->nr)
		advise_if_enabled(ADVICE_EVOLVE_OTHER_WORKTREE,
				  _("Run \"git evolve\" in that worktree to move it "
				    "with its files."));
}

/*
 * Say why evolve did not finish (`ret` from evolve_changes()), then how to
 * go on, unless the user turned that hint off.
 */
static void report_stop(const struct evolve_result *result, int ret,
			const char *err)
{
	error("%s", err);
	if (ret > 0)
		advise_if_enabled(ADVICE_MERGE_CONFLICT,
				  _("Resolve the conflicts, mark them with \"git add\", then run\n"
				    "\"git evolve --continue\". Use \"git evolve --skip\" to leave\n"
				    "this change where it is, or \"git evolve --abort\" to go back\n"
				    "to where evolve started."));
	else if (result->stop == EVOLVE_STOP_DIVERGENCE)
		advise_if_enabled(ADVICE_EVOLVE_DIVERGENCE,
				  _("Merge the two versions into one with\n"
				    "  git checkout %s && git merge --amend %s\n"
				    "drop one of them with \"git change delete\", or keep both,\n"
				    "one as a copy, with \"git change copy %s\"."),
				  result->stop_names[0], result->stop_names[1],
				  result->stop_names[1]);
	else if (result->stop == EVOLVE_STOP_REMOTE_DIVERGENCE)
		advise_if_enabled(ADVICE_EVOLVE_DIVERGENCE,
				  _("Merge the other version into yours with\n"
				    "  git checkout %s && git merge --amend %s\n"
				    "(or run \"git evolve --auto-merge\"): the result replaces\n"
				    "both, and pushing it is a fast-forward."),
				  result->stop_names[0], result->stop_names[1]);
	else if (result->stop == EVOLVE_STOP_MERGE_COMMIT)
		advise_if_enabled(ADVICE_MERGE_CONFLICT,
				  _("Evolve cannot stop on a merge commit. Merge again by hand,\n"
				    "then record that the result replaces the old merge with\n"
				    "\"git change update -c HEAD -r %s\", or abandon it with\n"
				    "\"git change abandon %s\"."),
				  result->stop_names[0], result->stop_names[0]);
}

static int abort_evolve(struct repository *repo)
{
	struct strbuf err = STRBUF_INIT;
	int ret = evolve_abort(repo, &err);

	if (ret)
		error("%s", err.buf);
	strbuf_release(&err);
	return ret ? 1 : 0;
}

int cmd_evolve(int argc, const char **argv, const char *prefix,
	       struct repository *repo)
{
	struct evolve_options opts = EVOLVE_OPTIONS_INIT;
	struct evolve_result result = EVOLVE_RESULT_INIT;
	struct strbuf err = STRBUF_INIT;
	int quiet = 0, steps = 0, ret, action = 0;
	struct option options[] = {
		OPT_BOOL('n', "dry-run", &opts.dry_run,
			 N_("show what would be rebased, without writing anything")),
		OPT_BOOL(0, "auto-merge", &opts.auto_merge,
			 N_("merge divergent versions of a commit instead of stopping")),
		OPT_BOOL(0, "follow-up-merges", &opts.follow_up_merges,
			 N_("resolve divergence with a change that merges the versions (default)")),
		OPT__QUIET(&quiet, N_("do not list what is rebased")),
		OPT_BOOL(0, "progress", &opts.show_progress,
			 N_("show progress (default: on a terminal, unless --quiet)")),
		OPT_CMDMODE(0, "continue", &action,
			    N_("resume after resolving the conflicts"), 'c'),
		OPT_CMDMODE(0, "skip", &action,
			    N_("resume, leaving the change that conflicted as it is"), 's'),
		OPT_CMDMODE(0, "abort", &action,
			    N_("go back to where evolve started"), 'a'),
		OPT_END(),
	};

	opts.show_progress = -1;
	repo_config(repo, git_default_config, NULL);
	argc = parse_options(argc, argv, prefix, options, evolve_usage, 0);
	if (opts.show_progress < 0)
		opts.show_progress = !quiet && isatty(2);
	if (argc && action)
		usage_with_options(evolve_usage, options);
	if (evolve_resolve_upstreams(repo, argv, argc, &opts.upstreams, &err))
		die("%s", err.buf);
	if (action && opts.dry_run)
		die(_("options '%s' and '%s' cannot be used together"),
		    "--dry-run", action == 'c' ? "--continue" :
		    action == 's' ? "--skip" : "--abort");
	if (action == 'a')
		return abort_evolve(repo);
	opts.action = action == 'c' ? EVOLVE_CONTINUE :
		action == 's' ? EVOLVE_SKIP : EVOLVE_START;

	ret = evolve_changes(repo, &opts, &result, &err);
	for (size_t i = 0; i < result.steps_nr; i++) {
		if (result.steps[i].resumed)
			continue;
		steps++;
		if (!quiet || opts.dry_run)
			print_step(&result.steps[i]);
	}
	if (!quiet || opts.dry_run)
		print_moved_refs(&result.moved_refs);
	/* What was done is told before what stopped it, even through a pipe. */
	fflush(stdout);
	print_skipped_refs(&result.skipped_refs);
	if (ret)
		report_stop(&result, ret, err.buf);
	else if (!steps && !result.moved_refs.nr && !quiet &&
		 opts.action == EVOLVE_START)
		printf(_("Nothing to evolve\n"));
	/*
	 * An evolve writes its commits and metacommits as packs: let
	 * maintenance merge them in time, as after a rebase. Its errors
	 * are for the user to see, not ours to report.
	 */
	if (!ret && !opts.dry_run && result.steps_nr)
		run_auto_maintenance(repo, quiet);

	evolve_result_release(&result);
	string_list_clear(&opts.upstreams, 0);
	strbuf_release(&err);
	return ret ? 1 : 0;
}

static const char * const next_usage[] = {
	N_("git next [-q | --quiet] [--evolve]"),
	NULL,
};

static const char * const prev_usage[] = {
	N_("git prev [-q | --quiet]"),
	NULL,
};

static struct commit *head_commit(struct repository *repo)
{
	struct object_id oid;
	struct commit *head = NULL;

	if (!repo_get_oid(repo, "HEAD", &oid))
		head = lookup_commit_reference_gently(repo, &oid, 1);
	if (!head)
		die(_("HEAD does not point to a commit"));
	return head;
}

/* Detach HEAD at `to` and say where it is, as "git checkout" does. */
static int move_head(struct repository *repo, struct commit *to,
		     const char *action, int quiet)
{
	struct strbuf err = STRBUF_INIT;
	struct strbuf subject = STRBUF_INIT;
	int ret = evolve_move_head(repo, to, action, &err);

	if (ret) {
		error("%s", err.buf);
	} else if (!quiet) {
		struct pretty_print_context ctx = { .abbrev = DEFAULT_ABBREV };

		repo_format_commit_message(repo, to, "%h %s", &subject, &ctx);
		fprintf(stderr, _("HEAD is now at %s\n"), subject.buf);
	}
	strbuf_release(&subject);
	strbuf_release(&err);
	return ret ? 1 : 0;
}

int cmd_next(int argc, const char **argv, const char *prefix,
	     struct repository *repo)
{
	struct string_list children = STRING_LIST_INIT_DUP;
	int evolve = 0, quiet = 0, ret;
	struct option options[] = {
		OPT__QUIET(&quiet, N_("do not say where HEAD is now")),
		OPT_BOOL(0, "evolve", &evolve,
			 N_("evolve the changes first, so that the next one is up to date")),
		OPT_END(),
	};

	repo_config(repo, git_default_config, NULL);
	argc = parse_options(argc, argv, prefix, options, next_usage, 0);
	if (argc)
		usage_with_options(next_usage, options);

	if (evolve) {
		struct evolve_options opts = EVOLVE_OPTIONS_INIT;
		struct evolve_result result = EVOLVE_RESULT_INIT;
		struct strbuf err = STRBUF_INIT;

		ret = evolve_changes(repo, &opts, &result, &err);
		for (size_t i = 0; i < result.steps_nr; i++)
			print_step(&result.steps[i]);
		print_moved_refs(&result.moved_refs);
		fflush(stdout);
		print_skipped_refs(&result.skipped_refs);
		if (ret)
			report_stop(&result, ret, err.buf);
		evolve_result_release(&result);
		strbuf_release(&err);
		if (ret)
			return 1;
	}

	evolve_children(repo, head_commit(repo), &children);
	if (!children.nr) {
		ret = error(_("no change is built on HEAD"));
	} else if (children.nr > 1) {
		struct string_list_item *child;

		error(_("several changes are built on HEAD:"));
		for_each_string_list_item(child, &children)
			fprintf(stderr, "  %s\n", display_name(child->string));
		advise_if_enabled(ADVICE_NEXT_AMBIGUOUS,
				  _("Check out the one you want with \"git checkout <change>\"."));
		ret = -1;
	} else {
		ret = move_head(repo, children.items[0].util, "next", quiet);
	}
	string_list_clear(&children, 0);
	return ret ? 1 : 0;
}

int cmd_prev(int argc, const char **argv, const char *prefix,
	     struct repository *repo)
{
	int quiet = 0;
	struct option options[] = {
		OPT__QUIET(&quiet, N_("do not say where HEAD is now")),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	struct commit *parent;
	int ret;

	repo_config(repo, git_default_config, NULL);
	argc = parse_options(argc, argv, prefix, options, prev_usage, 0);
	if (argc)
		usage_with_options(prev_usage, options);

	parent = evolve_newest_parent(repo, head_commit(repo), &err);
	if (parent)
		ret = move_head(repo, parent, "prev", quiet);
	else
		ret = error("%s", err.buf);
	strbuf_release(&err);
	return ret ? 1 : 0;
}
