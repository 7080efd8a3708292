// File-scoped namespace: everything below belongs to it.
namespace Shop.Cli; // @def module Shop.Cli

using System;

internal static class Program // @def class Shop.Cli.Program
{
    private static readonly string Banner = "shop"; // @def field Shop.Cli.Program.Banner

    public static int Main(string[] args) // @def method Shop.Cli.Program.Main
    {
        var count = args.Length;
        Console.WriteLine($"{Banner}: {count}");  // @ref call WriteLine in Shop.Cli.Program.Main
        return 0;
    }
}

interface ICommand // @def interface Shop.Cli.ICommand
{
    string Name { get; } // @def property Shop.Cli.ICommand.Name
    int Run(string[] args); // @decl method Shop.Cli.ICommand.Run
}
