package broker

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ExpressionMessageFilter matches ConsumeQueue units against a TAG subscription: a unit matches
// when the subscription is "*" (or class-filter mode), or when the unit's tagsCode, cut to 32
// bits, is in the subscription's codeSet. The codeSet holds Java String.hashCode values (rebuilt
// by the broker from tagsSet, see remoting-protocol.md §6.5).
// Mirrors org.apache.rocketmq.broker.filter.ExpressionMessageFilter (TAG type only; SQL92 is not
// built).
type ExpressionMessageFilter struct {
	matchAll bool
	codes    map[int32]struct{}
}

// NewExpressionMessageFilter builds the filter of sub (nil sub matches everything).
func NewExpressionMessageFilter(sub *protocol.SubscriptionData) *ExpressionMessageFilter {
	f := &ExpressionMessageFilter{}
	if sub == nil || sub.ClassFilterMode || sub.SubString == protocol.SubAll || sub.SubString == "" {
		f.matchAll = true
		return f
	}
	f.codes = make(map[int32]struct{}, len(sub.CodeSet))
	for _, c := range sub.CodeSet {
		f.codes[int32(c)] = struct{}{}
	}
	return f
}

// IsMatchedByConsumeQueue implements store.MessageFilter.
// Java: ExpressionMessageFilter#isMatchedByConsumeQueue.
func (f *ExpressionMessageFilter) IsMatchedByConsumeQueue(tagsCode int64) bool {
	if f.matchAll {
		return true
	}
	_, ok := f.codes[int32(tagsCode)]
	return ok
}
