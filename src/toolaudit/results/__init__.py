"""What an audit counts: the tally, bounded tables, groups, the summary, comparisons."""
