/// The part of `upgrade --help` and `downgrade --help` that says what they read, where they
/// write, what they refuse and how they exit; the README's command-line section says the same.
enum BatchHelp {
    static func discussion(verb: String) -> String {
        """
        INPUTS: files, or folders walked with --include PATTERN (fnmatch on the file name, such as '*.json'; \
        repeatable; hidden files, the tool's temporaries and .bak files are skipped). A folder without --include, \
        a FIFO or a device is refused, saying what it is. A plain document (no envelope, no typed objects) is \
        \(verb)d with the document chain --document names, or with the only one the rules have (the report says \
        so); when no chain applies, that is an error, not "Nothing to migrate".

        OUTPUT: a single file goes to standard output; several need -o DIR or --in-place. -o DIR writes \
        DIR/<file name> (the files of a walked folder keep their paths inside it) and refuses two inputs that \
        would land on one output, and outputs DIR already has unless --overwrite. --in-place replaces each file \
        that changes, keeping its mode, owner, group and extended attributes; a symbolic link stays a link and \
        the file it points to is replaced; a file with several hard links is refused (replacing it would split \
        them). --backup keeps each original as <file>.bak, with the same metadata; a .bak that already holds the \
        original is kept (a rerun after an interruption), one that differs is refused unless --overwrite.

        ALL OR NOTHING: every new file and backup is written to a temporary file and flushed to disk first, \
        and moved into place only when all are: a damaged archive, an output that cannot be written or a full \
        disk leaves every file as it was. A run that writes into a folder another run is writing into waits \
        for it. Reports go to standard error (--format json for scripts), archive data only to standard \
        output. --dry-run reads, \(verb)s and reports every file, checks every output, and writes nothing.

        EXIT STATUS: 0 success (--dry-run: nothing would change); 1 --dry-run: something would change; 2 an \
        error (nothing was written); 3 an archive was written by a newer version than the chains know. When a \
        batch has several, 2 wins over 3, and 3 over 1.
        """
    }
}
