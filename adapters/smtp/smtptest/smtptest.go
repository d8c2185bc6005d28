// Package smtptest is a tiny SMTP server on loopback for tests: it accepts
// every message and keeps it, so a test can read what the service sent.
package smtptest

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one message the sink received.
type Message struct {
	From string
	To   []string
	Data string // headers and body, dot-unstuffed
}

// Sink is a running SMTP server that records the messages it gets.
type Sink struct {
	addr string
	got  chan struct{}
	mu   sync.Mutex
	msgs []Message
}

// New starts a sink that stops when t ends.
func New(t testing.TB) *Sink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &Sink{addr: ln.Addr().String(), got: make(chan struct{}, 100)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

// Addr is the sink's host:port.
func (s *Sink) Addr() string { return s.addr }

// Got receives once per message stored.
func (s *Sink) Got() <-chan struct{} { return s.got }

// Messages returns the messages received so far.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

func (s *Sink) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	say := func(line string) { c.Write([]byte(line + "\r\n")) }
	say("220 sink ESMTP")
	var m Message
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 sink")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			m = Message{From: strings.TrimSpace(line[len("MAIL FROM:"):])}
			say("250 OK")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			m.To = append(m.To, strings.Trim(strings.TrimSpace(line[len("RCPT TO:"):]), "<>"))
			say("250 OK")
		case cmd == "DATA":
			say("354 go ahead")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			m.Data = b.String()
			s.mu.Lock()
			s.msgs = append(s.msgs, m)
			s.mu.Unlock()
			select {
			case s.got <- struct{}{}:
			default:
			}
			say("250 OK queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("250 OK")
		}
	}
}
