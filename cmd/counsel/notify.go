package main

import (
	"context"
	"net"
	"strconv"
	"time"
)

// notifier speaks systemd's notify protocol (sd_notify(3)): datagrams such
// as READY=1 to the unix socket NOTIFY_SOCKET names. Under Type=notify
// systemd starts dependent units on READY=1, shows STOPPING=1, and with
// WatchdogSec= restarts the service when WATCHDOG=1 stops arriving. A nil
// notifier (no NOTIFY_SOCKET: not run by systemd) sends nothing.
type notifier struct {
	addr *net.UnixAddr
	// watchdog is WATCHDOG_USEC when it is meant for this process; 0: off.
	watchdog time.Duration
}

// newNotifier reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID through
// getenv (an address starting with @ is in the abstract namespace, as Go
// reads it too).
func newNotifier(getenv func(string) string, pid int) *notifier {
	sock := getenv("NOTIFY_SOCKET")
	if sock == "" {
		return nil
	}
	n := &notifier{addr: &net.UnixAddr{Name: sock, Net: "unixgram"}}
	if us, err := strconv.ParseInt(getenv("WATCHDOG_USEC"), 10, 64); err == nil && us > 0 {
		if p := getenv("WATCHDOG_PID"); p == "" || p == strconv.Itoa(pid) {
			n.watchdog = time.Duration(us) * time.Microsecond
		}
	}
	return n
}

// send sends one state message.
func (n *notifier) send(state string) error {
	if n == nil {
		return nil
	}
	c, err := net.DialUnix("unixgram", nil, n.addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Write([]byte(state))
	return err
}

// watch sends WATCHDOG=1 every half of the watchdog interval while healthy
// answers nil, until ctx ends; while it fails no ping is sent, so systemd
// restarts a service whose database stopped answering. Each check is
// bounded by the same half interval.
func (n *notifier) watch(ctx context.Context, healthy func(context.Context) error, unhealthy func(error)) {
	if n == nil || n.watchdog <= 0 {
		return
	}
	every := n.watchdog / 2
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, every)
		err := healthy(cctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			n.send("WATCHDOG=1")
		} else if unhealthy != nil {
			unhealthy(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
