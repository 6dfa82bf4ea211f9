"""The broadcast room of the bridge (issue 21): exact all-in equities, the delayed
broadcast view of a table's hand, and what the overlay page reads."""
