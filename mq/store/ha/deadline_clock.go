package ha

import "time"

// socketDeadline is a socket deadline d from now. Socket deadlines are wall time (the kernel's
// timers), whatever clock the store runs on, so this is the one place HA reads time.Now.
func socketDeadline(d time.Duration) time.Time { return time.Now().Add(d) }
