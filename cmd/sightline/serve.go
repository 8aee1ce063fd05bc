package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/server"
)

func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	level := fs.String("log-level", "info", "log level: debug, info, warn, error")
	stateDir := fs.String("state-dir", "", "ledger database folder (default: <state>/sightline/<workspace>, <state> being $XDG_STATE_HOME, else ~/.local/state, or %LOCALAPPDATA% on Windows)")
	engine := fs.String("extract", "", "signature extractor: regex or treesitter (overrides the extract setting)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file (performance work)")
	noBridge := fs.Bool("no-bridge", false, "do not open the local socket the CLI and sightline mcp hand their calls to")
	_ = fs.Bool("stdio", true, "use stdio (the only transport; accepted for clients that pass it)")
	if _, ok := parseFlags(fs, args, stderr); !ok {
		return exitUsage
	}
	if *engine != "" {
		// Refused, not served by the regex engine without a word.
		if err := extract.Available(*engine); err != nil {
			fmt.Fprintf(stderr, "sightline serve: --extract: %v\n", err)
			return exitUsage
		}
	}
	log, closeLog, err := newLogger(*logFile, *level, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "sightline serve: %v\n", err)
		return exitUsage
	}
	defer closeLog()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "sightline serve: --cpuprofile: %v\n", err)
			return exitUsage
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "sightline serve: --cpuprofile: %v\n", err)
			return exitUsage
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if os.Getenv("GOGC") == "" {
		// The live heap is small (documents share structure) while reads
		// allocate their answers: collect less often, for steadier latency.
		debug.SetGCPercent(400)
	}
	wd, _ := os.Getwd()
	srv := server.New(server.Options{Log: log, Root: wd, StateDir: *stateDir, Extract: *engine, Bridge: !*noBridge})
	// stdout is the protocol stream: nothing else may write to it.
	code := srv.Serve(ctx, server.NewStream(stdin, stdout, closerOf(stdin), closerOf(stdout)))
	log.Info("exit", zap.Int("code", code))
	return code
}

func closerOf(v any) io.Closer {
	if c, ok := v.(io.Closer); ok {
		return c
	}
	return io.NopCloser(nil)
}

// newLogger logs JSON lines to a file, or console lines to stderr.
func newLogger(file, level string, stderr io.Writer) (*zap.Logger, func(), error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level: %w", err)
	}
	var ws zapcore.WriteSyncer = zapcore.AddSync(stderr)
	closeFn := func() {}
	enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		ws = zapcore.AddSync(f)
		closeFn = func() { _ = f.Close() }
		enc = zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	}
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(ws), lvl)), closeFn, nil
}
