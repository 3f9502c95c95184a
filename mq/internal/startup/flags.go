package startup

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
)

// ErrPrintedConfig is returned after -p printed the effective config: the caller starts
// nothing and exits 0 (ExitCode).
var ErrPrintedConfig = errors.New("config printed")

// Flags is a binary's command line: the flags both take (-c FILE, -p) on a flag set named
// after the program whose errors and usage go to stderr. A binary adds its own flags (mqbroker's
// -n) to FlagSet and sets its Usage before Parse.
type Flags struct {
	*flag.FlagSet
	// ConfigFile is -c: the properties file (RocketMQ's keys); "" when not given.
	ConfigFile *string
	// PrintConfig is -p: print the effective config and start nothing.
	PrintConfig *bool
}

// NewFlags returns prog's flag set, writing to stderr, with -c (described by configUsage) and -p.
func NewFlags(prog, configUsage string, stderr io.Writer) *Flags {
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &Flags{
		FlagSet:     fs,
		ConfigFile:  fs.String("c", "", configUsage),
		PrintConfig: fs.Bool("p", false, "print the effective config (every key, defaults included) and exit"),
	}
}

// SetUsage sets -h's text (and the one printed after a bad flag): "Usage: " and synopsis, the
// flags, then "Defaults (keys of a -c file; -p prints them all):" and the lines defaults
// writes.
func (f *Flags) SetUsage(synopsis string, defaults func(w io.Writer)) {
	f.Usage = func() {
		w := f.Output()
		fmt.Fprintf(w, "Usage: %s\n", synopsis)
		f.PrintDefaults()
		fmt.Fprintln(w, "Defaults (keys of a -c file; -p prints them all):")
		defaults(w)
	}
}

// Parse parses args. -h returns flag.ErrHelp (the usage is printed); a bad flag returns an
// error wrapping conf.ErrUsage (the flag package printed it with the usage); arguments after
// the flags are an error naming them.
func (f *Flags) Parse(args []string) error {
	if err := f.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", conf.ErrUsage, err)
	}
	if f.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", f.Args())
	}
	return nil
}

// ApplyConfigFile reads the -c file at path (properties syntax, RocketMQ's keys) onto the
// configs (conf.Apply). It returns the file's properties and the keys no config knows
// (sorted). Errors name the file: "read config file: ..." when it cannot be read, "config file
// PATH: ..." for a line or a value that does not parse.
func ApplyConfigFile(path string, configs ...any) (props map[string]string, unknown []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read config file: %w", err)
	}
	defer f.Close()
	props, err = conf.ParseProperties(f)
	if err == nil {
		unknown, err = conf.Apply(props, configs...)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return props, unknown, nil
}

// PrintConfig is -p's output: the configs' keys in properties syntax on stdout, nothing else
// (the output reads back as a -c file). Java: MixAll#printObjectProperties.
func PrintConfig(stdout io.Writer, configs ...any) {
	fmt.Fprint(stdout, conf.Format(configs...))
}

// ExitCode prints err once on stderr, with the one "prog: " prefix, and returns the exit
// status: 0 for none, -h (flag.ErrHelp) or -p (ErrPrintedConfig), 2 for a bad flag (conf.ErrUsage:
// the flag package printed it with the usage), 1 else.
func ExitCode(prog string, err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), errors.Is(err, ErrPrintedConfig):
		return 0
	case errors.Is(err, conf.ErrUsage):
		return 2
	}
	fmt.Fprintln(stderr, prog+":", err)
	return 1
}
