package index

// exerciseCheck runs what the check builds from an index's counts.
func exerciseCheck(ix *Index) {
	contentFilesOf(ix)
	inodesOf(ix)
	knownDirs(ix)
}
