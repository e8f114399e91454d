"""Imported only as a forkserver preload (``indexer.WORKER_PRELOAD``): importing it in the forkserver
ties the forkserver's life to the indexer that started it. Nothing else imports it."""

from forewarn.indexing.orphans import die_with_parent, expect_children

die_with_parent()
expect_children()  # the workers it forks check against the forkserver
