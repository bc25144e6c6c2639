import { SimpleGrid, Stack, Title, UnstyledButton } from '@mantine/core';
import classes from '../station.module.css';

export function Choices({
  title,
  items,
  onPick,
}: {
  title: string;
  items: { value: string; label: string }[];
  onPick: (value: string) => void;
}) {
  return (
    <Stack gap="sm">
      <Title order={2} size="h3">
        {title}
      </Title>
      <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="sm">
        {items.map((item) => (
          <UnstyledButton key={item.value || 'none'} className={classes.choice} onClick={() => onPick(item.value)}>
            {item.label}
          </UnstyledButton>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
