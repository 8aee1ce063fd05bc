package editblock

import "fmt"

// Words name the lines a diagnosis talks about. Edit blocks speak of their
// EDIT half and the file's path; a patch hunk speaks of its old lines and
// leaves the path to the answer around it.
type Words struct {
	// Lines is the subject of a sentence about all the lines sought.
	Lines string
	// Line is the subject for a single line sought: a format with one %s,
	// the quoted line.
	Line string
	// Half names the lines inside a sentence ("Line 2 of the EDIT half").
	Half string
	// Has says what the sought lines hold ("the block has").
	Has string
	// Anchor is the subject, taking a singular verb, for lines that only
	// anchor an insertion.
	Anchor string
	// Ours names what holds the lines, inside a sentence ("the block").
	Ours string
}

// words are b's own Words, or the edit block's.
func (b Block) words() Words {
	if b.Words != nil {
		return *b.Words
	}
	return Words{
		Lines:  "The EDIT lines for " + b.Path,
		Line:   "The EDIT line %s for " + b.Path,
		Half:   "the EDIT half",
		Has:    "the block has",
		Anchor: "The anchor for " + b.Path,
		Ours:   "the block",
	}
}

// HunkWords are the words of a patch hunk's diagnoses.
func HunkWords(hunk int) *Words {
	h := fmt.Sprintf("hunk %d", hunk)
	return &Words{
		Lines:  "The context and removed lines of " + h,
		Line:   "The line %s of " + h,
		Half:   h,
		Has:    h + " has",
		Anchor: "The context of " + h,
		Ours:   "the hunk",
	}
}
