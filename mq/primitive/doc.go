// Package primitive holds the message types shared by every layer: Message, MessageExt,
// MessageExtBrokerInner, MessageQueue, property names and the properties string, sysFlag bits,
// the Java tag hash, message ids (offsetMsgId) and MessageDecoder, which reads the 17-field
// record that is both the CommitLog's on-disk format and the body of a pull response.
//
// Java: org.apache.rocketmq.common.message (Message, MessageExt, MessageExtBrokerInner,
// MessageDecoder, MessageConst, MessageQueue) and org.apache.rocketmq.common.sysflag.MessageSysFlag.
//
// # Files in reading order
//
//	message.go        the structs; MessageQueue#toString
//	message_const.go  MessageConst: property names, separators
//	properties.go     the properties string (MarshalProperties, UnmarshalProperties) and
//	                  Message's property helpers (Tags, Keys, WaitStoreMsgOK, DelayTimeLevel)
//	sysflag.go        MessageSysFlag bits, the transaction-type helpers, UncompressBody (UtilAll#uncompress)
//	tags.go           TagsString2TagsCode (Java String.hashCode), CRC32 (UtilAll#crc32)
//	msgid.go          offsetMsgId create/decode, host field <-> "ip:port"
//	decoder.go        DecodeMessage / DecodeMessages (MessageDecoder#decode)
//	encoder.go        EncodeMessage (MessageDecoder#encode: the CHECK_TRANSACTION_STATE body)
//	batch.go          DecodeBatchBody: the SEND_BATCH_MESSAGE body
//	errors.go         sentinel errors
//
// # The message record
//
// Big-endian; n = body, t = topic, p = properties length; BORNHOST / STOREHOSTADDRESS are 20
// bytes instead of 8 when SYSFLAG bit 4 (0x10) / bit 5 (0x20) is set, shifting later offsets
// by 12 each. The store's encoder writes it (mq/store); this package reads it, and EncodeMessage writes one for
// the check-back request.
//
//	offset size  field
//	     0    4  TOTALSIZE                  91 + n + t + p (IPv4 hosts)
//	     4    4  MAGICCODE                  0xDAA320A7 (BLANK filler: 0xCBD43194)
//	     8    4  BODYCRC                    crc32(IEEE)(body) & 0x7FFFFFFF
//	    12    4  QUEUEID
//	    16    4  FLAG                       user flag
//	    20    8  QUEUEOFFSET                ConsumeQueue index (units, not bytes)
//	    28    8  PHYSICALOFFSET             CommitLog byte offset of this record
//	    36    4  SYSFLAG                    see sysflag.go
//	    40    8  BORNTIMESTAMP              ms
//	    48    8  BORNHOST                   IPv4 4 + port 4  (or IPv6 16 + port 4)
//	    56    8  STORETIMESTAMP             ms, taken under the append lock
//	    64    8  STOREHOSTADDRESS           IPv4 4 + port 4  (or IPv6 16 + port 4)
//	    72    4  RECONSUMETIMES
//	    76    8  PREPAREDTRANSACTIONOFFSET  half message's CommitLog offset, or 0
//	    84    4  BODYLENGTH                 n
//	    88    n  BODY                       as stored (zlib if SYSFLAG bit 0)
//	  88+n    1  TOPICLENGTH                t ≤ 127
//	  89+n    t  TOPIC                      UTF-8
//	89+n+t    2  PROPERTIESLENGTH           p ≤ 32767 (signed short)
//	91+n+t    p  PROPERTIES                 name 0x01 value 0x02 name 0x01 value
//
// offsetMsgId = upper-case hex(STOREHOSTADDRESS ‖ PHYSICALOFFSET): 32 characters for IPv4.
//
// # The batch send body (SEND_BATCH_MESSAGE)
//
//	TOTALSIZE 4 | MAGICCODE 4 | BODYCRC 4 | FLAG 4 | BODYLENGTH 4 | BODY n | PROPERTIESLENGTH 2 | PROPERTIES p
//
// repeated; the first three fields are ignored by the reader.
//
// No goroutines, no locks: values here are plain data, owned by whoever holds them.
package primitive
