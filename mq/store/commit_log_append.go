package store

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrFileSizeMismatch: the master's bytes do not fit this slave's CommitLog files — a start
// that is no file start, a body crossing a file end, or a record header that ends the
// master's file somewhere inside the slave's. The slave's mappedFileSizeCommitLog must be
// its master's; nothing of the refused bytes is written.
var ErrFileSizeMismatch = errors.New("store: the master's commitlog files are not this slave's mappedFileSizeCommitLog " +
	"(set the slave's mappedFileSizeCommitLog to the master's)")

// appendData writes raw CommitLog bytes at startOffset, which must be the current end of the
// log — or, on an empty log, the start of a file (a master hands a new slave its last file
// first); data must not cross a file end. Every record header that starts in the log's new
// bytes is checked against the slave's file (checkAppendedRecords) before anything is
// written. A refusal wraps ErrFileSizeMismatch (or names the expected end for a wrong
// startOffset) and writes nothing. Java: CommitLog#appendData.
func (c *CommitLog) appendData(startOffset CommitLogOffset, data []byte) error {
	c.putMu.Lock()
	defer c.putMu.Unlock()
	size := c.env.cfg.MappedFileSizeCommitLog
	last := c.mfq.LastMappedFile()
	empty := last == nil
	if empty && (startOffset < 0 || int64(startOffset)%int64(size) != 0) {
		return fmt.Errorf("append to an empty commitlog at %d: not the start of a file of mappedFileSizeCommitLog=%d bytes: %w",
			startOffset, size, ErrFileSizeMismatch)
	}
	if end := c.getMaxOffset(); !empty && end != startOffset {
		return fmt.Errorf("store: append to commitlog at %d, but the log ends at %d", startOffset, end)
	}
	// The file the bytes go to, checked before it is created: a refusal leaves no new file.
	fileStart, pos, written := startOffset, 0, []byte(nil)
	if !empty && !last.IsFull() {
		fileStart, pos = CommitLogOffset(last.fileFromOffset), last.WrotePosition()
		written = last.appendTarget()[:pos]
	}
	if pos+len(data) > size {
		return fmt.Errorf("append %d bytes at %d: does not fit file %s of mappedFileSizeCommitLog=%d bytes: %w",
			len(data), startOffset, offset2FileName(int64(fileStart)), size, ErrFileSizeMismatch)
	}
	if c.appendedRecordEnd < 0 || empty {
		// After recovery the log ends at a record boundary; an empty log starts at a file start.
		// (Records put since the last append, after a role switch, are walked like the master's.)
		c.appendedRecordEnd = startOffset
	}
	next, err := checkAppendedRecords(c.appendedRecordEnd, fileStart, size, written, startOffset, data)
	if err != nil {
		return err
	}
	mf, err := c.mfq.getLastMappedFile(int64(startOffset), true)
	if err != nil {
		return err
	}
	if CommitLogOffset(mf.fileFromOffset) != fileStart || !mf.appendBytes(data) {
		// checked above under the same lock: a bug if it happens
		return fmt.Errorf("store: internal error: append %d bytes at %d to file %s failed", len(data), startOffset, mf.FileName())
	}
	c.appendedRecordEnd = next
	return nil
}

// checkAppendedRecords walks the record headers (TOTALSIZE, MAGICCODE: 8 bytes, big-endian)
// that start between next and the end of data, as if data were written at startOffset into
// the slave's file at fileStart (fileSize bytes; written holds the bytes it has), and
// returns where the next header will start (CommitLog bytes). A message record must be at
// least minRecordSize bytes (what recovery and reput accept) and leave at least
// EndFileMinBlankLength bytes of its file (the room the master keeps for its BLANK
// record); a BLANK record's TOTALSIZE must reach exactly the end of the slave's file. A master
// with smaller files sends its file-end BLANK record inside the slave's file, and the slave's
// reput would take it for the end of the file and never dispatch what follows — so this
// refuses it with ErrFileSizeMismatch, naming the record's position, its TOTALSIZE, the
// master's file end it implies and the slave's file size. An unknown MAGICCODE or a BLANK
// record with a TOTALSIZE below 1 is refused as corrupt (a plain error).
//
// Deviation: Java's CommitLog#appendData writes whatever the master sends; a slave with larger
// files then loses every later message from its ConsumeQueues without a word.
func checkAppendedRecords(next, fileStart CommitLogOffset, fileSize int, written []byte,
	startOffset CommitLogOffset, data []byte) (CommitLogOffset, error) {
	name := func() string { return offset2FileName(int64(fileStart)) } // for errors only
	fileEnd := fileStart + CommitLogOffset(fileSize)
	end := startOffset + CommitLogOffset(len(data))
	if next < fileStart && startOffset == fileStart {
		// the previous file's last record does not end at its file end
		return 0, fmt.Errorf("append at %d, the start of file %s: the previous file's last record ends at %d, "+
			"not at the file end (mappedFileSizeCommitLog=%d): %w", startOffset, name(), next, fileSize, ErrFileSizeMismatch)
	}
	if next < fileStart || next > end {
		// not a stream we followed (a record longer than the data so far leaves next past end)
		if next > end {
			return next, nil
		}
		next = startOffset
	}
	var hdr [EndFileMinBlankLength]byte
	for next+EndFileMinBlankLength <= end {
		b := hdr[:]
		if next >= startOffset {
			b = data[next-startOffset:]
		} else { // the header straddles the bytes the file has and the new ones
			at := int(next - fileStart)
			for i := range hdr {
				if p := next + CommitLogOffset(i); p < startOffset {
					hdr[i] = written[at+i]
				} else {
					hdr[i] = data[p-startOffset]
				}
			}
		}
		totalSize := int64(int32(binary.BigEndian.Uint32(b[posTotalSize:])))
		switch binary.BigEndian.Uint32(b[posMagic:]) {
		case blankMagicCode:
			switch masterEnd := next + CommitLogOffset(totalSize); {
			case masterEnd == fileEnd:
				return fileEnd, nil
			case masterEnd > next && masterEnd < fileEnd:
				return 0, fmt.Errorf("the master's end-of-file BLANK record at %d (TOTALSIZE=%d) ends the master's file at %d, "+
					"inside this slave's file %s of mappedFileSizeCommitLog=%d bytes (ending at %d): the master's "+
					"mappedFileSizeCommitLog is smaller, a divisor of %d: %w", next, totalSize, masterEnd, name(),
					fileSize, fileEnd, masterEnd, ErrFileSizeMismatch)
			case masterEnd > fileEnd:
				return 0, fmt.Errorf("the master's end-of-file BLANK record at %d (TOTALSIZE=%d) ends the master's file at %d, "+
					"past the end of this slave's file %s of mappedFileSizeCommitLog=%d bytes (ending at %d): %w",
					next, totalSize, masterEnd, name(), fileSize, fileEnd, ErrFileSizeMismatch)
			default:
				return 0, fmt.Errorf("store: append at %d: corrupt BLANK record at %d (TOTALSIZE=%d) in the master's bytes",
					startOffset, next, totalSize)
			}
		case messageMagicCode:
			if totalSize < minRecordSize || next+CommitLogOffset(totalSize) > fileEnd-EndFileMinBlankLength {
				return 0, fmt.Errorf("the master's record at %d (TOTALSIZE=%d) does not fit this slave's file %s "+
					"(mappedFileSizeCommitLog=%d bytes, ends at %d): %w", next, totalSize, name(), fileSize,
					fileEnd, ErrFileSizeMismatch)
			}
			next += CommitLogOffset(totalSize)
		default:
			return 0, fmt.Errorf("store: append at %d: no record at %d (MAGICCODE %#08x) in the master's bytes",
				startOffset, next, binary.BigEndian.Uint32(b[posMagic:]))
		}
	}
	return next, nil
}
