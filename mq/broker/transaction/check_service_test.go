package transaction

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// emptyStore is a MessageStore with empty half and op queues (the check service's timing is
// what is under test, not the store).
type emptyStore struct{}

func (emptyStore) PutMessage(*primitive.MessageExtBrokerInner) store.PutMessageResult {
	return store.PutMessageResult{PutMessageStatus: store.ServiceNotAvailable}
}

func (emptyStore) AsyncPutMessage(*primitive.MessageExtBrokerInner) <-chan store.PutMessageResult {
	ch := make(chan store.PutMessageResult, 1)
	ch <- store.PutMessageResult{PutMessageStatus: store.ServiceNotAvailable}
	return ch
}

func (emptyStore) GetMessage(string, string, int32, store.QueueOffset, int32, store.MessageFilter) *store.GetMessageResult {
	return &store.GetMessageResult{Status: store.NoMessageInQueue}
}

func (emptyStore) GetMinOffsetInQueue(string, int32) store.QueueOffset { return 0 }

func (emptyStore) LookMessageByOffset(store.CommitLogOffset) (*primitive.MessageExt, error) {
	return nil, errors.New("no message")
}

func (emptyStore) Now() int64 { return clock.Millis(clock.System{}) }

// TestCheckServiceRunsEveryInterval pins TransactionalMessageCheckService#run on a fake clock:
// the first pass comes one transactionCheckInterval after Start (Java's waitForRunning before
// onWaitEnd), then one per interval; Shutdown stops it.
func TestCheckServiceRunsEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := trace.NewRecorder()
		bridge := NewTransactionalMessageBridge(Deps{Store: emptyStore{}, Offsets: &offsets{m: map[string]store.QueueOffset{}},
			Tracer: rec.Tracer("broker-a")})
		svc := NewTransactionalMessageCheckService(CheckConfig{TransactionTimeOut: 6 * time.Second, TransactionCheckMax: 15,
			TransactionCheckInterval: time.Minute}, NewTransactionalMessageServiceImpl(bridge, 72*time.Hour),
			NewAbstractTransactionalMessageCheckListener(bridge, &fakeClient{}))
		passes := func() int {
			n := 0
			for _, l := range rec.Labels() {
				if l == "TransactionalMessageCheckService#onWaitEnd" {
					n++
				}
			}
			return n
		}
		svc.Start()
		time.Sleep(time.Minute - time.Millisecond)
		synctest.Wait()
		require.Zero(t, passes(), "no pass before the first interval")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		require.Equal(t, 1, passes())
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		require.Equal(t, 3, passes())
		svc.Shutdown()
		time.Sleep(time.Hour)
		synctest.Wait()
		require.Equal(t, 3, passes(), "stopped")
	})
}
