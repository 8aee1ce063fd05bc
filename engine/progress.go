package engine

import "context"

// Progress is told how far a long call has come: done of total units (the
// files hashed of those to hash). It is called from one goroutine at a
// time, at most every progressEvery and once at the end, and must not block.
type Progress func(done, total int)

type progressKey struct{}

// WithProgress gives a call a progress report; a door that shows work in
// progress (a terminal) sets it, and a server forwards it to its caller.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressOf is the call's progress report, nil when none was given.
func ProgressOf(ctx context.Context) Progress {
	p, _ := ctx.Value(progressKey{}).(Progress)
	return p
}
