package startup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMainStopsOnSignal: a SIGTERM reaches run's stop channel (it does not kill the process), and run's
// error becomes the exit status, printed once with the prefix.
func TestMainStopsOnSignal(t *testing.T) {
	var errOut bytes.Buffer
	code := Main("prog", &errOut, func(stop <-chan os.Signal) error {
		require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
		select {
		case s := <-stop:
			return fmt.Errorf("stopped by %v", s)
		case <-time.After(10 * time.Second):
			return errors.New("no signal")
		}
	})
	require.Equal(t, 1, code)
	require.Equal(t, "prog: stopped by terminated\n", errOut.String())
	require.Equal(t, 0, Main("prog", &errOut, func(<-chan os.Signal) error { return nil }))
}
