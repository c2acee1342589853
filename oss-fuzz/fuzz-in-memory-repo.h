#ifndef FUZZ_IN_MEMORY_REPO_H
#define FUZZ_IN_MEMORY_REPO_H

/*
 * What the metacommit and change-table harnesses share: an in-memory SHA-1
 * repository, set up once; only the objects parsed from one input are
 * dropped before the next, which is much faster than setting up and
 * clearing the whole repository each time. Include after defining
 * USE_THE_REPOSITORY_VARIABLE.
 */

#include "object.h"
#include "repository.h"

static void fuzz_silent(const char *err UNUSED, va_list params UNUSED)
{
}

static void setup_repository(void)
{
	if (the_repository->initialized)
		return;
	initialize_repository(the_repository);
	repo_set_hash_algo(the_repository, GIT_HASH_SHA1);
	set_error_routine(fuzz_silent);
}

static void reset_repository(void)
{
	parsed_object_pool_clear(the_repository->parsed_objects);
	free(the_repository->parsed_objects);
	the_repository->parsed_objects = parsed_object_pool_new(the_repository);
}

#endif /* FUZZ_IN_MEMORY_REPO_H */
