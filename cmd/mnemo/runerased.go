package main

import (
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
)

// erasedByRun counts the threads, and their messages, that a command's
// engine erased on its own account while the command ran: evicted by a
// quota (lifecycle.quota in mnemo.json) or expired, idle past their
// lifetime, when an append met them. mnemo ingest's summary says them
// (clause), so that "2 messages stored" is not all it says when one of
// them was evicted since; the warnings after it name the threads
// (eventNotes). Its JSON is --json's, each member left out when 0.
type erasedByRun struct {
	Evicted         int `json:"evicted,omitempty"`         // threads evicted by a quota
	EvictedMessages int `json:"evictedMessages,omitempty"` // their messages
	Expired         int `json:"expired,omitempty"`         // threads expired, idle past their lifetime
	ExpiredMessages int `json:"expiredMessages,omitempty"` // their messages
}

// add counts ev when it is an eviction or an expiry.
func (r *erasedByRun) add(ev engine.Event) {
	switch ev.Reason {
	case engine.EventEvictedStoreQuota, engine.EventEvictedResourceQuota:
		r.Evicted++
		r.EvictedMessages += ev.Count
	case engine.EventExpired:
		r.Expired++
		r.ExpiredMessages += ev.Count
	}
}

// plus adds o's counts to r's.
func (r *erasedByRun) plus(o erasedByRun) {
	r.Evicted += o.Evicted
	r.EvictedMessages += o.EvictedMessages
	r.Expired += o.Expired
	r.ExpiredMessages += o.ExpiredMessages
}

// clause is r for the end of a summary line: "; 1 thread evicted
// (quota), 1 message erased", "; 2 threads expired (idle), 5 messages
// erased", "; 1 thread evicted (quota) and 1 expired (idle), 4 messages
// erased"; "" when nothing was erased.
func (r erasedByRun) clause() string {
	msgs := count(r.EvictedMessages+r.ExpiredMessages, "message") + " erased"
	switch {
	case r.Evicted > 0 && r.Expired > 0:
		return fmt.Sprintf("; %s evicted (quota) and %d expired (idle), %s", count(r.Evicted, "thread"), r.Expired, msgs)
	case r.Evicted > 0:
		return fmt.Sprintf("; %s evicted (quota), %s", count(r.Evicted, "thread"), msgs)
	case r.Expired > 0:
		return fmt.Sprintf("; %s expired (idle), %s", count(r.Expired, "thread"), msgs)
	}
	return ""
}
