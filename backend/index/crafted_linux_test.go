package index

// exerciseCheck runs what the check builds from an index's counts.
func exerciseCheck(ix *Index) {
	contentFilesOf(ix)
	g, n := inodeGroups(ix)
	inodesOf(ix, g, n)
	groupFilesOf(g, n)
	knownDirs(ix)
}
