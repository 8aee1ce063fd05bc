package confine

import "io/fs"

// Links is the number of hard links of the file fi describes (the stat of an
// opened descriptor, for it to be the file read); 1 where the system does
// not say. A file with several cannot be known by its name alone.
func Links(fi fs.FileInfo) uint64 { return links(fi) }
