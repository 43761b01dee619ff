package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/observe"
)

// errNoProgress is observeAll's error when a call stopped at the
// observer's round bound having stored nothing: calling it again would
// send the same chunks.
var errNoProgress = errors.New("observe: the observer stopped at its bound on model calls a run (observe.DefaultMaxRounds) without storing an observation or a skip")

// observeAll runs e.Observe on thread until it no longer stops at the
// observer's round bound (Result.MaxRoundsReached, 16 model calls a
// call): `mnemo observe --force` promises every unobserved turn older
// than the recent window, and stopped after 16 calls with turns still
// due, exit 0, saying nothing (readme71 F2). Each call's result goes to
// each as it comes; the reflector runs once, after the last. It stops on
// an error, on ctx's end, and on a call that stopped at the bound having
// stored nothing (errNoProgress): it never spins. The result returned
// gathers every call's; nil when the first call returned none (an
// error before the observer ran: a thread not stored, …). An error after
// something was stored is observe.Partial's, counting what every call
// stored (it counted the last call's: "interrupted: 9 observation(s)
// stored" when the command stored 73; readme72 F4).
func observeAll(ctx context.Context, e *engine.Engine, thread string, opt observe.Options, each func(*observe.Result)) (*observe.Result, error) {
	all, err := observeRounds(ctx, e, thread, opt, each)
	if err != nil && all != nil && len(all.Observations)+len(all.Skipped) > 0 {
		err = observe.Partial(len(all.Observations)+len(all.Skipped), err)
	}
	return all, err
}

// observeRounds is observeAll but for its error, the last call's.
func observeRounds(ctx context.Context, e *engine.Engine, thread string, opt observe.Options, each func(*observe.Result)) (*observe.Result, error) {
	all := &observe.Result{Observations: []observe.Observation{}}
	rounds := opt
	rounds.NoReflect = true
	for {
		res, err := e.Observe(ctx, thread, rounds)
		if res == nil && len(all.Observations)+len(all.Skipped) == 0 {
			return nil, err // refused before the observer ran
		}
		gather(all, res, each)
		if err != nil || res == nil {
			return all, err
		}
		if !res.MaxRoundsReached {
			break
		}
		if len(res.Observations)+len(res.Skipped) == 0 {
			return all, fmt.Errorf("%w: watermark %d, %s pending", errNoProgress, res.Pending.Watermark, count(res.Pending.PendingTurns, "turn"))
		}
		if err := ctx.Err(); err != nil {
			return all, err
		}
	}
	if opt.NoReflect {
		return all, nil
	}
	res, err := e.Observe(ctx, thread, opt) // what came since, then the reflector
	gather(all, res, each)
	return all, err
}

// gather adds res, one call's result (nil when it returned none), to all
// and hands it to each: observations and skips accumulate, the rest is
// the latest call's.
func gather(all, res *observe.Result, each func(*observe.Result)) {
	if res == nil {
		return
	}
	each(res)
	all.Observations = append(all.Observations, res.Observations...)
	all.Skipped = append(all.Skipped, res.Skipped...)
	if res.Reflection != nil {
		all.Reflection = res.Reflection
	}
	all.Pending, all.Backoffs = res.Pending, res.Backoffs
	all.ChunkCapTokens, all.MaxRoundsReached = res.ChunkCapTokens, res.MaxRoundsReached
}
