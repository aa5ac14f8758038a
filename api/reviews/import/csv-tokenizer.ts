/**
 * A streaming RFC 4180 tokenizer that knows the physical line of every record
 * and recovers from errors at the next line. Written here rather than taken
 * from csv-parse because an import must report each bad record with its line
 * and go on with the next: csv-parse counts a CRLF inside quotes as two lines,
 * stops reading after a record that is too large, and after an error cannot
 * resume at the next line.
 *
 * Records end at an unquoted line break (LF, CRLF or CR). A field that starts
 * with `"` is quoted: `""` inside it is a quote, line breaks are content. A
 * quote inside an unquoted field, or text after a closing quote, makes the
 * record an error that ends at the next line break; a record larger than
 * MAX_RECORD_CHARS is an error without being held in memory; a quote never
 * closed swallows the rest of the file and is reported at its line.
 */
import { MAX_RECORD_CHARS } from './text-chunks.ts';

export interface CsvRow {
  /** 1-based line where the record starts. */
  line: number;
  cells?: string[];
  /** Why the record could not be read (it was skipped). */
  error?: string;
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/** Characters that end a run of plain text, outside and inside quotes. */
const UNQUOTED_SPECIAL = /[,\r\n"]/g;
const QUOTED_SPECIAL = /["\r\n]/g;

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote seen inside a quoted field: an escaped quote, or the closing one. */
  QuoteInQuoted,
  /** An error was found: ignore everything up to the end of the line. */
  Skip,
}

export class CsvTokenizer {
  private state = State.FieldStart;
  private line = 1;
  private recordLine = 1;
  private quoteLine = 1;
  private cells: string[] = [];
  private parts: string[] = [];
  private error: string | null = null;
  /** The record has outgrown MAX_RECORD_CHARS: nothing more of it is kept. */
  private dropping = false;
  /** Characters of the current record in earlier chunks. */
  private recordChars = 0;
  /** Nothing of the current record has been read yet. */
  private empty = true;
  /** The previous character was a CR: a LF right after it belongs to the same line break. */
  private afterCR = false;
  private rows: CsvRow[] = [];

  /** Tokenizes one chunk; returns the records it completed. */
  push(chunk: string): CsvRow[] {
    const n = chunk.length;
    let sliceStart = 0;
    let recordStart = 0;
    for (let i = 0; i < n; i++) {
      const c = chunk.charCodeAt(i);
      if (this.afterCR) {
        this.afterCR = false;
        if (c === LF) {
          // The LF of a CRLF: the line was counted at the CR. Inside quotes it is content.
          if (this.state === State.Quoted) continue;
          recordStart = i + 1;
          continue;
        }
      }
      const lineBreak = c === LF || c === CR;
      this.empty = false;
      switch (this.state) {
        case State.FieldStart:
          if (c === QUOTE) {
            this.state = State.Quoted;
            this.quoteLine = this.line;
            sliceStart = i + 1;
          } else if (c === COMMA) this.endField('');
          else if (lineBreak) {
            this.endField('');
            this.endRecord(i - recordStart);
            recordStart = i + 1;
          } else {
            this.state = State.Unquoted;
            sliceStart = i;
          }
          break;
        case State.Unquoted:
          if (c !== COMMA && !lineBreak && c !== QUOTE) {
            // Plain text: jump to the next character that means something here.
            UNQUOTED_SPECIAL.lastIndex = i + 1;
            const next = UNQUOTED_SPECIAL.exec(chunk);
            i = (next ? next.index : n) - 1;
            continue;
          }
          if (c === COMMA) {
            this.endField(chunk.slice(sliceStart, i));
            this.state = State.FieldStart;
          } else if (lineBreak) {
            this.endField(chunk.slice(sliceStart, i));
            this.endRecord(i - recordStart);
            recordStart = i + 1;
          } else if (c === QUOTE) {
            this.fail(`a quote inside an unquoted field (field ${this.cells.length + 1}); quote the whole field and double the quote ("")`);
          }
          break;
        case State.Quoted:
          if (c !== QUOTE && !lineBreak) {
            QUOTED_SPECIAL.lastIndex = i + 1;
            const next = QUOTED_SPECIAL.exec(chunk);
            i = (next ? next.index : n) - 1;
            continue;
          }
          if (c === QUOTE) {
            if (!this.dropping) this.parts.push(chunk.slice(sliceStart, i));
            this.state = State.QuoteInQuoted;
          }
          break;
        case State.QuoteInQuoted:
          if (c === QUOTE) {
            if (!this.dropping) this.parts.push('"');
            sliceStart = i + 1;
            this.state = State.Quoted;
          } else if (c === COMMA) {
            this.endField('');
            this.state = State.FieldStart;
          } else if (lineBreak) {
            this.endField('');
            this.endRecord(i - recordStart);
            recordStart = i + 1;
          } else {
            this.fail(`text after the closing quote of field ${this.cells.length + 1}; a quote inside a quoted field is written ""`);
          }
          break;
        case State.Skip:
          if (lineBreak) {
            this.endRecord(i - recordStart);
            recordStart = i + 1;
          }
          break;
      }
      if (c === CR) {
        this.line++;
        this.afterCR = true;
      } else if (c === LF) this.line++;
    }
    // Carry the unfinished field and the record's size over to the next chunk.
    if (!this.dropping && (this.state === State.Unquoted || this.state === State.Quoted)) this.parts.push(chunk.slice(sliceStart));
    this.recordChars += n - recordStart;
    if (!this.empty && this.recordChars > MAX_RECORD_CHARS) this.drop();
    const rows = this.rows;
    this.rows = [];
    return rows;
  }

  /** The end of the input: the last record, or why it cannot be read. */
  end(): CsvRow[] {
    if (this.state === State.Quoted) {
      this.error ??= `a quoted field opened on line ${this.quoteLine} is never closed; the rest of the file was not read`;
      this.state = State.Skip;
    }
    if (!this.empty) {
      // The pieces of the last field are in `parts` already.
      if (this.state !== State.Skip) this.endField('');
      this.endRecord(0);
    }
    const rows = this.rows;
    this.rows = [];
    return rows;
  }

  /** Ends the field: the pieces carried in `parts`, then `value`. */
  private endField(value: string): void {
    if (!this.dropping) {
      this.cells.push(this.parts.length > 0 ? this.parts.join('') + value : value);
    }
    this.parts = [];
  }

  private fail(reason: string): void {
    this.error ??= reason;
    this.state = State.Skip;
    this.parts = [];
  }

  private drop(): void {
    this.dropping = true;
    this.error ??= `the record is larger than ${MAX_RECORD_CHARS} characters`;
    this.cells = [];
    this.parts = [];
  }

  /** `tail`: characters of the record in the current chunk. */
  private endRecord(tail: number): void {
    if (this.recordChars + tail > MAX_RECORD_CHARS) this.drop();
    this.rows.push(this.error === null ? { line: this.recordLine, cells: this.cells } : { line: this.recordLine, error: this.error });
    // The line break that ends this record is counted after it: the next record starts on the next line.
    this.recordLine = this.line + 1;
    this.state = State.FieldStart;
    this.cells = [];
    this.parts = [];
    this.error = null;
    this.dropping = false;
    this.recordChars = 0;
    this.empty = true;
  }
}
