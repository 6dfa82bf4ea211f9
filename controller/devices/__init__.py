"""What the table is wired to: interfaces, real backends (gpiozero, spidev, luma, seat
nodes) and the mock backend. Imports only the standard library and vendor libraries."""
