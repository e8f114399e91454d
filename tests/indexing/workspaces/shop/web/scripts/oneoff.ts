function printBanner(message: string): void {
  console.log(`*** ${message} ***`);
}

printBanner("maintenance");
