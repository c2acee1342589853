/*
 * "git evolve": rebase the changes whose parent is obsolete onto its
 * newest version, until no change has an obsolete parent.
 */

#include "builtin.h"
#include "evolve.h"
#include "gettext.h"
#include "parse-options.h"
#include "repository.h"
#include "strbuf.h"

static const char * const evolve_usage[] = {
	N_("git evolve [--dry-run] [-q | --quiet]"),
	NULL,
};

static const char *display_name(const char *refname)
{
	skip_prefix(refname, "refs/", &refname);
	return refname;
}

static void print_step(const struct evolve_step *step)
{
	const char *name = display_name(step->refnames.items[0].string);

	switch (step->type) {
	case EVOLVE_STEP_REBASE:
		printf(_("rebasing %s onto %s\n"), name, step->onto);
		break;
	case EVOLVE_STEP_DELETE_EMPTY:
		printf(_("deleting %s: it became empty on %s\n"), name, step->onto);
		break;
	case EVOLVE_STEP_DROP_ABANDONED:
		printf(_("dropping abandoned %s\n"), name);
		break;
	}
}

int cmd_evolve(int argc, const char **argv, const char *prefix,
	       struct repository *repo)
{
	struct evolve_options opts = { 0 };
	struct evolve_result result = EVOLVE_RESULT_INIT;
	struct strbuf err = STRBUF_INIT;
	int quiet = 0, ret;
	struct option options[] = {
		OPT_BOOL('n', "dry-run", &opts.dry_run,
			 N_("show what would be rebased, without writing anything")),
		OPT__QUIET(&quiet, N_("do not list what is rebased")),
		OPT_END(),
	};

	argc = parse_options(argc, argv, prefix, options, evolve_usage, 0);
	if (argc)
		usage_with_options(evolve_usage, options);

	ret = evolve_changes(repo, &opts, &result, &err);
	if (!quiet || opts.dry_run)
		for (size_t i = 0; i < result.steps_nr; i++)
			print_step(&result.steps[i]);
	if (ret)
		error("%s", err.buf);
	else if (!result.steps_nr && !quiet)
		printf(_("Nothing to evolve\n"));

	evolve_result_release(&result);
	strbuf_release(&err);
	return ret ? 1 : 0;
}
